import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../matrix/cases.js';

export { ROOT };
/** test/fixtures/ai-sdk/: `@ai-sdk/mcp` 2.0.99 and `ai` 7.0.173, installed on their own. */
export const FIXTURE = join(ROOT, 'test', 'fixtures', 'ai-sdk');

/** The part of an `@ai-sdk/mcp` client these tests call. */
export interface AiSdkClient {
  callTool(args: { name: string; arguments: Record<string, unknown> }): Promise<{
    isError?: boolean;
    content?: unknown;
    _meta?: Record<string, unknown>;
  }>;
  tools(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** The module `@ai-sdk/mcp` as far as these tests use it. */
export interface AiSdkMcp {
  createMCPClient(config: Record<string, unknown>): Promise<AiSdkClient>;
  [name: string]: unknown;
}

/** `@ai-sdk/mcp/mcp-stdio`. */
export interface AiSdkStdio {
  StdioMCPTransport: new (params: Record<string, unknown>) => object;
}

const dist = join(FIXTURE, 'node_modules', '@ai-sdk', 'mcp', 'dist');

/**
 * The fixture's `@ai-sdk/mcp` and its stdio transport. `copy` loads a module instance of its
 * own (its own client class), as an application that loaded it before any hook would have.
 */
export async function loadAiSdk(copy?: string): Promise<{ mcp: AiSdkMcp; stdio: AiSdkStdio }> {
  const url = (file: string): string =>
    pathToFileURL(join(dist, file)).href + (copy === undefined ? '' : `?copy=${copy}`);
  const mcp = (await import(url('index.js'))) as AiSdkMcp;
  const stdio = (await import(url(join('mcp-stdio', 'index.js')))) as AiSdkStdio;
  return { mcp, stdio };
}
