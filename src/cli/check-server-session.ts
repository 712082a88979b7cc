/**
 * The MCP SDK 1.x side of `mcp-failures check server`: connects to the server under test (a
 * stdio child process or a Streamable HTTP URL) and makes raw `tools/call` requests, so the
 * checker sees each result exactly as it came. The SDK is loaded on first use: it is an optional
 * peer dependency, and without it the command says so in one line.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallAnswer, DeclarationSeen } from '../check/server.js';
import { TOOL_FAILURE_META_KEY } from '../tool-failure/constants.js';
import { declaresExtension } from '../tool-failure/declaration.js';
import { discoverCapabilities } from './check-server-discover.js';
import { REQUEST_TIMEOUT } from '../shared/jsonrpc.js';
import { PACKAGE_VERSION } from '../version.js';
import { firstLineOf } from '../shared/first-line.js';

/** The server to check. */
export type CheckTarget =
  { kind: 'stdio'; command: string; args: string[] } | { kind: 'http'; url: string };

/** An open connection to the server under test. */
export interface CheckSession {
  /** The names of the tools the server lists. */
  listTools(): Promise<string[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<CallAnswer>;
  /**
   * Whether the server declares the extension, in `initialize` and in `server/discover`; may be
   * asked after `close()`.
   */
  declaration?(): Promise<DeclarationSeen>;
  close(): Promise<void>;
}

/** The server could not be reached, or went away; the message is one line. */
export class CheckConnectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckConnectionError';
  }
}

async function loadClientSdk() {
  try {
    const [client, types, stdio, http] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/types.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    ]);
    return { client, types, stdio, http };
  } catch (error) {
    throw new CheckConnectionError(
      `cannot load the MCP SDK 1.x (@modelcontextprotocol/sdk, a peer dependency): ${firstLineOf(error)}`,
    );
  }
}

/** Connects to `target` within `timeoutMs`; rejects with `CheckConnectionError`. */
export async function connectToServer(
  target: CheckTarget,
  timeoutMs: number,
): Promise<CheckSession> {
  const sdk = await loadClientSdk();
  let lastStderrLine = '';
  let transport: Transport;
  if (target.kind === 'stdio') {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    const stdio = new sdk.stdio.StdioClientTransport({
      command: target.command,
      args: target.args,
      env,
      stderr: 'pipe',
    });
    // The server's own stderr is not ours to print; its last line explains a failed start.
    stdio.stderr?.on('data', (chunk: Buffer) => {
      const lines = chunk
        .toString('utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      lastStderrLine = lines.at(-1) ?? lastStderrLine;
    });
    transport = stdio;
  } else {
    transport = new sdk.http.StreamableHTTPClientTransport(new URL(target.url));
  }
  const where = target.kind === 'stdio' ? `'${target.command}'` : target.url;
  const client: Client = new sdk.client.Client(
    { name: 'mcp-failures-check', version: PACKAGE_VERSION },
    { capabilities: {} },
  );
  let closed = false;
  client.onclose = () => (closed = true);
  client.onerror = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(transport, { timeout: timeoutMs }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer to initialize within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
  } catch (error) {
    void client.close().catch(() => undefined);
    const said = lastStderrLine === '' ? '' : ` (server stderr: ${lastStderrLine})`;
    throw new CheckConnectionError(`cannot connect to ${where}: ${firstLineOf(error)}${said}`);
  } finally {
    clearTimeout(timer);
  }
  const lost = (error: unknown): CheckConnectionError => {
    const said = lastStderrLine === '' ? '' : ` (server stderr: ${lastStderrLine})`;
    return new CheckConnectionError(
      `the connection to ${where} was lost: ${firstLineOf(error)}${said}`,
    );
  };

  return {
    async listTools() {
      if (client.getServerCapabilities()?.tools === undefined) return [];
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        try {
          const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
            timeout: timeoutMs,
          });
          for (const tool of page.tools) names.push(tool.name);
          cursor = page.nextCursor;
        } catch (error) {
          throw closed
            ? lost(error)
            : new CheckConnectionError(`tools/list failed: ${firstLineOf(error)}`);
        }
      } while (cursor !== undefined && names.length < 10_000);
      return names;
    },
    async callTool(name, args) {
      try {
        const result = await client.request(
          { method: 'tools/call', params: { name, arguments: args } },
          sdk.types.ResultSchema,
          { timeout: timeoutMs },
        );
        return { kind: 'result', result };
      } catch (error) {
        if (closed) throw lost(error);
        if (error instanceof sdk.types.McpError) {
          if (error.code === REQUEST_TIMEOUT && /timed out/i.test(error.message))
            return { kind: 'no-answer', detail: `no answer within ${timeoutMs} ms` };
          const prefix = `MCP error ${error.code}: `;
          const message = error.message.startsWith(prefix)
            ? error.message.slice(prefix.length)
            : error.message;
          return error.data === undefined
            ? { kind: 'rpc-error', code: error.code, message }
            : { kind: 'rpc-error', code: error.code, message, data: error.data };
        }
        return { kind: 'no-answer', detail: firstLineOf(error) };
      }
    },
    async declaration() {
      const looked = ['initialize'];
      const notes: string[] = [];
      let declared = declaresExtension(client.getServerCapabilities(), TOOL_FAILURE_META_KEY);
      // Its own short connection, after the session's: one server process at a time.
      const discovery = await discoverCapabilities(target, timeoutMs);
      if (discovery.kind === 'discovered') {
        looked.push('server/discover (2026-07-28)');
        declared ||= declaresExtension(discovery.capabilities, TOOL_FAILURE_META_KEY);
      } else notes.push(discovery.why);
      return { declared, looked, notes };
    },
    async close() {
      await client.close().catch(() => undefined);
    },
  };
}
