import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/core/config.js';
import { McpInstrumentation } from '../../src/index.js';

describe('config: where thrown exceptions are recorded', () => {
  it('defaults to the failure log record only', () => {
    const c = resolveConfig({}, {});
    expect(c.emitFailureLogs).toBe(true);
    expect(c.exceptionSpanEvents).toBe(false);
  });

  it('follows OTEL_SEMCONV_EXCEPTION_SIGNAL_OPT_IN, also in a comma-separated list', () => {
    expect(
      resolveConfig({}, { OTEL_SEMCONV_EXCEPTION_SIGNAL_OPT_IN: 'logs/dup' }).exceptionSpanEvents,
    ).toBe(true);
    expect(
      resolveConfig({}, { OTEL_SEMCONV_EXCEPTION_SIGNAL_OPT_IN: 'http, logs/dup' })
        .exceptionSpanEvents,
    ).toBe(true);
    expect(
      resolveConfig({}, { OTEL_SEMCONV_EXCEPTION_SIGNAL_OPT_IN: 'logs' }).exceptionSpanEvents,
    ).toBe(false);
  });

  it('the option wins over the variable; without failure logs, span events keep the detail', () => {
    expect(
      resolveConfig(
        { exceptionSignal: 'logs' },
        { OTEL_SEMCONV_EXCEPTION_SIGNAL_OPT_IN: 'logs/dup' },
      ).exceptionSpanEvents,
    ).toBe(false);
    expect(resolveConfig({ exceptionSignal: 'logs/dup' }, {}).exceptionSpanEvents).toBe(true);
    expect(resolveConfig({ emitFailureLogs: false }, {}).exceptionSpanEvents).toBe(true);
  });

  it('nonsense values fall back to the default', () => {
    const c = resolveConfig({ exceptionSignal: 'span' as never }, {});
    expect(c.exceptionSpanEvents).toBe(false);
  });
});

describe('config: a value that is ignored is reported', () => {
  const warningsOf = (config: Record<string, unknown>): string[] => {
    const warnings: string[] = [];
    resolveConfig(config, {}, (m) => warnings.push(m));
    return warnings;
  };

  it('names the option, what it must be, what it got and what is used instead', () => {
    expect(warningsOf({ maxFailureLogsPerSecond: -1 })).toEqual([
      'mcp: option maxFailureLogsPerSecond must be a number >= 0 (Infinity for no limit) (got -1); using 10',
    ]);
    expect(warningsOf({ maxStackTracesPerSecond: '5' })).toEqual([
      "mcp: option maxStackTracesPerSecond must be a number >= 0 (Infinity for no limit) (got '5'); using 10",
    ]);
    expect(warningsOf({ maxAttributeLength: 8 })).toEqual([
      'mcp: option maxAttributeLength must be an integer >= 16 (got 8); using 256',
    ]);
    expect(warningsOf({ metaKey: '' })[0]).toContain('metaKey must be a non-empty string');
    expect(warningsOf({ exceptionSignal: 'span' })[0]).toContain(
      "exceptionSignal must be 'logs' or 'logs/dup' (got 'span')",
    );
    expect(warningsOf({ maxFailureLogsPerSecond: { n: 1 } })[0]).toContain('(got an object)');
  });

  it('says nothing for valid values and defaults', () => {
    expect(warningsOf({})).toEqual([]);
    expect(
      warningsOf({
        maxFailureLogsPerSecond: Infinity,
        maxStackTracesPerSecond: 0,
        maxAttributeLength: 16,
        metaKey: 'x/y',
        exceptionSignal: 'logs/dup',
      }),
    ).toEqual([]);
  });

  it("goes to the instrumentation's diagnostic logger, once per configuration", () => {
    const warned: string[] = [];
    const logger: DiagLogger = {
      error: () => {},
      warn: (...args: unknown[]) => warned.push(args.join(' ')),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    };
    diag.setLogger(logger, DiagLogLevel.WARN);
    try {
      const instrumentation = new McpInstrumentation({
        enabled: false,
        maxFailureLogsPerSecond: Number.NaN,
      });
      const source = instrumentation._telemetry();
      source.config();
      source.config();
      expect(warned.filter((m) => m.includes('maxFailureLogsPerSecond'))).toHaveLength(1);
    } finally {
      diag.disable();
    }
  });
});
