import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { DataPoint } from '@opentelemetry/sdk-metrics';
import type { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, vi } from 'vitest';
import { useFakeTime } from './fake-time.js';

/** A reader that exports nothing by itself: the test collects when it reads. */
class TestReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** The data points of the metric `name` that `reader` collects now. */
export async function metricPoints(
  reader: MetricReader,
  name: string,
): Promise<DataPoint<number>[]> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics
    .flatMap((s) => s.metrics)
    .filter((m) => m.descriptor.name === name)
    .flatMap((m) => m.dataPoints as DataPoint<number>[]);
}

/** The meter provider of the running test and its reader. */
export interface TestMeters {
  readonly provider: MeterProvider;
  readonly reader: MetricReader;
}

/**
 * For the calling describe: each test under fake time, with `exporter` reset and a fresh meter
 * provider read by `reader`; afterwards real time again and the provider shut down.
 */
export function useFakeTimeAndMeters(exporter: InMemorySpanExporter): TestMeters {
  let reader: TestReader | undefined;
  let provider: MeterProvider | undefined;
  beforeEach(() => {
    exporter.reset();
    reader = new TestReader();
    provider = new MeterProvider({ readers: [reader] });
    useFakeTime();
  });
  afterEach(async () => {
    vi.useRealTimers();
    await provider?.shutdown();
  });
  return {
    get provider() {
      if (provider === undefined) throw new Error('no meter provider outside a test');
      return provider;
    },
    get reader() {
      if (reader === undefined) throw new Error('no metric reader outside a test');
      return reader;
    },
  };
}
