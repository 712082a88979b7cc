import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/core/config.js';

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
