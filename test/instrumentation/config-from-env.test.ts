import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFromEnv } from '../../src/register/start.js';
import {
  CAPTURE_MESSAGE_CONTENT_ENV,
  parseEnvFlag,
  resolveConfig,
} from '../../src/shared/config.js';

describe('zero-code entry: options from the environment', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads the boolean flags and the two budgets', () => {
    expect(
      configFromEnv({
        OTEL_INSTRUMENTATION_MCP_TRUST_INCOMING_CONTEXT: 'false',
        OTEL_INSTRUMENTATION_MCP_ADD_FAILURE_OBJECTS: 'TRUE',
        OTEL_INSTRUMENTATION_MCP_DECLARE_EXTENSION: 'false',
        OTEL_INSTRUMENTATION_MCP_MAX_FAILURE_LOGS_PER_SECOND: ' 50 ',
        OTEL_INSTRUMENTATION_MCP_MAX_STACK_TRACES_PER_SECOND: '0',
      }),
    ).toEqual({
      trustIncomingContext: false,
      addFailureObjects: true,
      declareExtension: false,
      maxFailureLogsPerSecond: 50,
      maxStackTracesPerSecond: 0,
    });
    expect(
      configFromEnv({ OTEL_INSTRUMENTATION_MCP_MAX_FAILURE_LOGS_PER_SECOND: 'Infinity' }),
    ).toEqual({ maxFailureLogsPerSecond: Infinity });
    expect(configFromEnv({ OTEL_INSTRUMENTATION_MCP_MAX_FAILURE_LOGS_PER_SECOND: '' })).toEqual({});
  });

  it('OTEL_INSTRUMENTATION_MCP_TOOL_RESULT_OUTPUTS turns on reading outputs (result variants)', () => {
    expect(configFromEnv({ OTEL_INSTRUMENTATION_MCP_TOOL_RESULT_OUTPUTS: 'true' })).toEqual({
      toolResultOutputs: true,
    });
    expect(configFromEnv({ OTEL_INSTRUMENTATION_MCP_TOOL_RESULT_OUTPUTS: 'false' })).toEqual({
      toolResultOutputs: false,
    });
    expect(configFromEnv({})).toEqual({});
  });

  it('a value that cannot be read keeps the default, with one line on stderr', () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    for (const bad of ['-1', 'ten', 'NaN']) {
      expect(configFromEnv({ OTEL_INSTRUMENTATION_MCP_MAX_STACK_TRACES_PER_SECOND: bad })).toEqual(
        {},
      );
    }
    expect(configFromEnv({ OTEL_INSTRUMENTATION_MCP_PROPAGATE_CONTEXT: 'maybe' })).toEqual({});
    expect(lines.pop()).toBe(
      '@omcp/instrumentation-mcp: OTEL_INSTRUMENTATION_MCP_PROPAGATE_CONTEXT=maybe is not true or false; using the default\n',
    );
    expect(lines).toEqual(
      ['-1', 'ten', 'NaN'].map(
        (bad) =>
          `@omcp/instrumentation-mcp: OTEL_INSTRUMENTATION_MCP_MAX_STACK_TRACES_PER_SECOND=${bad} is not a number >= 0 or infinity; using the default\n`,
      ),
    );
  });

  it('OTEL_INSTRUMENTATION_MCP_CLASSIFICATION_RULES names a rules file, checked at start: one line per bad rule', () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const dir = mkdtempSync(join(tmpdir(), 'omcp-env-rules-'));
    const file = join(dir, 'rules.json');
    writeFileSync(
      file,
      JSON.stringify({
        rules: [
          { match: { code: 'ENOENT' }, class: 'capability', code: 'resource_not_found' },
          { match: { code: 'E' }, class: 'bogus', code: 'x' },
        ],
      }),
    );
    expect(configFromEnv({ OTEL_INSTRUMENTATION_MCP_CLASSIFICATION_RULES: ` ${file} ` })).toEqual({
      classificationRules: file,
    });
    expect(lines).toEqual([
      `@omcp/instrumentation-mcp: classification rules ${file}: rule 2 class must be "capability", "reliability" or "governance"; left out\n`,
    ]);
  });
});

describe('payload capture from the environment: both entries read it alike', () => {
  afterEach(() => vi.restoreAllMocks());

  const accepted: Array<[string, boolean]> = [
    ['true', true],
    ['TRUE', true],
    [' True ', true],
    ['false', false],
    ['FALSE', false],
    [' false\n', false],
  ];
  const rejected = ['', '   ', 'yes', '1', 'on', 'truee', 'maybe'];

  it.each(accepted)('%j is %s for configFromEnv and resolveConfig', (raw, value) => {
    const env = { [CAPTURE_MESSAGE_CONTENT_ENV]: raw };
    expect(parseEnvFlag(raw)).toBe(value);
    expect(configFromEnv(env).captureToolPayloads).toBe(value);
    expect(resolveConfig({}, env).captureToolPayloads).toBe(value);
    expect(resolveConfig(configFromEnv(env), env).captureToolPayloads).toBe(value);
  });

  it.each(rejected)('%j is rejected by both: capture stays off', (raw) => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const env = { [CAPTURE_MESSAGE_CONTENT_ENV]: raw };
    expect(parseEnvFlag(raw)).toBeUndefined();
    expect(configFromEnv(env)).toEqual({});
    expect(resolveConfig({}, env).captureToolPayloads).toBe(false);
  });

  it('names the variable of the conventions', () => {
    expect(CAPTURE_MESSAGE_CONTENT_ENV).toBe('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT');
  });
});
