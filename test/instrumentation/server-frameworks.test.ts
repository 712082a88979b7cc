/**
 * The module hooks on the server frameworks (fastmcp, tmcp): a module of another shape than the
 * patch knows is said once, in one diagnostic line with its version and the supported range, and
 * nothing of it is patched; the docs name the classification the fastmcp patch gives. The
 * frameworks themselves, at their pinned versions, are run in test/frameworks/.
 */
import { readFileSync } from 'node:fs';
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpInstrumentation } from '../../src/instrumentation.js';
import {
  FASTMCP_RANGE,
  FASTMCP_TOOL_TIMEOUT,
  FASTMCP_USER_ERROR,
} from '../../src/patches/fastmcp.js';
import { TMCP_RANGE } from '../../src/patches/tmcp.js';

const warnings: string[] = [];
const logger: DiagLogger = {
  error: () => undefined,
  // The component logger puts its namespace first: the line is what follows it.
  warn: (...args: unknown[]) => void warnings.push(args.slice(1).map(String).join(' ')),
  info: () => undefined,
  debug: () => undefined,
  verbose: () => undefined,
};

beforeEach(() => {
  warnings.length = 0;
  diag.setLogger(logger, DiagLogLevel.WARN);
});
afterEach(() => diag.disable());

/** Runs the instrumentation's module hook for `name` on `exports`, as the loader would. */
function load(name: string, exports: Record<string, unknown>, version: string): void {
  const instrumentation = new McpInstrumentation({ enabled: false });
  const definition = instrumentation.getModuleDefinitions().find((d) => d.name === name);
  expect(definition?.supportedVersions).toEqual([name === 'fastmcp' ? FASTMCP_RANGE : TMCP_RANGE]);
  definition!.patch!(exports, version);
}

describe('server framework hooks', () => {
  it('fastmcp without setupToolHandlers: one line, nothing patched', () => {
    class FastMCPSession {
      other(): string {
        return 'untouched';
      }
    }
    load('fastmcp', { FastMCPSession, UserError: class extends Error {} }, '4.99.0');
    expect(warnings).toEqual([
      `mcp: fastmcp 4.99.0 exports no FastMCPSession.prototype.setupToolHandlers or UserError: a UserError stays reliability/internal_error. Supported: fastmcp ${FASTMCP_RANGE}; please report this version.`,
    ]);
    expect(Object.getOwnPropertyNames(FastMCPSession.prototype)).toEqual(['constructor', 'other']);
  });

  it('fastmcp without FastMCPSession: one line', () => {
    load('fastmcp', { FastMCP: class {} }, '4.99.1');
    expect(warnings).toEqual([
      `mcp: fastmcp 4.99.1 exports no FastMCPSession: a UserError stays reliability/internal_error. Supported: fastmcp ${FASTMCP_RANGE}; please report this version.`,
    ]);
  });

  it('tmcp whose McpServer has no receive(): one line, nothing patched', () => {
    class McpServer {
      tool(): void {}
    }
    const tool = McpServer.prototype.tool;
    load('tmcp', { McpServer }, '1.99.0');
    expect(warnings).toEqual([
      `mcp: tmcp 1.99.0 has an McpServer without receive() or tool(): its requests get no server spans. Supported: tmcp ${TMCP_RANGE}; please report this version.`,
    ]);
    expect(McpServer.prototype.tool).toBe(tool);
  });

  it('the docs name the classes and codes the fastmcp patch gives', () => {
    const frameworks = readFileSync(new URL('../../docs/frameworks.md', import.meta.url), 'utf8');
    const classification = readFileSync(
      new URL('../../docs/classification.md', import.meta.url),
      'utf8',
    );
    for (const doc of [frameworks, classification]) {
      expect(doc).toMatch(
        new RegExp(
          `\\| [^|\\n]*\`UserError\` \\(or a subclass[^|\\n]*\\| ${FASTMCP_USER_ERROR.class} \\| \`${FASTMCP_USER_ERROR.code}\` \\| – \\|`,
        ),
      );
      expect(doc).toMatch(
        new RegExp(
          `\\| [^|\\n]*\`timeoutMs\`[^|\\n]*\\| ${FASTMCP_TOOL_TIMEOUT.class} \\| \`${FASTMCP_TOOL_TIMEOUT.code}\` \\| ${String(FASTMCP_TOOL_TIMEOUT.retryable)} \\|`,
        ),
      );
    }
  });
});
