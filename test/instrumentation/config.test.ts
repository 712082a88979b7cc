import { diag } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/shared/config.js';
import { McpInstrumentation } from '../../src/index.js';
import { collectDiagWarnings } from '../helpers/diag-warnings.js';

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

  it('switches must be booleans: a string is not read as true or false', () => {
    // 'false' is truthy and 'no' is not `false`: both once changed the behaviour silently.
    const c = resolveConfig(
      { addFailureObjects: 'no', redactThrownErrorText: 'true', captureToolPayloads: 1 } as never,
      {},
    );
    expect(c.addFailureObjects).toBe(true);
    expect(c.redactThrownErrorText).toBe(false);
    expect(c.captureToolPayloads).toBe(false);
    expect(warningsOf({ addFailureObjects: 'no' })).toEqual([
      "mcp: option addFailureObjects must be true or false (got 'no'); using true",
    ]);
    for (const option of [
      'captureToolPayloads',
      'trustIncomingContext',
      'propagateContext',
      'emitFailureLogs',
      'redactThrownErrorText',
      'toolResultOutputs',
      'declareExtension',
    ])
      expect(warningsOf({ [option]: 'false' })[0], option).toContain(
        `option ${option} must be true or false (got 'false')`,
      );
  });

  it('hooks and the classifier must be functions; the allow list an array of strings', () => {
    for (const option of ['requestHook', 'responseHook', 'errorClassifier']) {
      expect(warningsOf({ [option]: 'log' }), option).toEqual([
        `mcp: option ${option} must be a function (got 'log'); using the default`,
      ]);
      expect(resolveConfig({ [option]: {} } as never, {})[option as 'requestHook']).toBe(undefined);
    }
    expect(warningsOf({ metricCodeAllowList: 'quota_exceeded' })[0]).toContain(
      'metricCodeAllowList must be an array of strings',
    );
    const mixed = resolveConfig({ metricCodeAllowList: ['a', 1, 'b'] } as never, {}, () => {});
    expect([...mixed.metricCodes]).toEqual(['a', 'b']);
    expect(warningsOf({ metricCodeAllowList: ['a', 1, null] })).toEqual([
      'mcp: option metricCodeAllowList must be an array of strings (got 2 other entries); using the strings',
    ]);
  });

  it('toolResultOutputs (result variants, an open SEP) is off unless set to true', () => {
    expect(resolveConfig({}, {}).toolResultOutputs).toBe(false);
    expect(resolveConfig({ toolResultOutputs: true }, {}).toolResultOutputs).toBe(true);
    expect(
      resolveConfig({ toolResultOutputs: 'true' } as never, {}, () => {}).toolResultOutputs,
    ).toBe(false);
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
        captureToolPayloads: true,
        addFailureObjects: false,
        trustIncomingContext: false,
        propagateContext: false,
        emitFailureLogs: false,
        redactThrownErrorText: true,
        requestHook: () => {},
        responseHook: () => {},
        errorClassifier: () => undefined,
        metricCodeAllowList: ['quota_exceeded'],
      }),
    ).toEqual([]);
  });

  it("goes to the instrumentation's diagnostic logger, once per configuration", () => {
    const warned = collectDiagWarnings();
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
