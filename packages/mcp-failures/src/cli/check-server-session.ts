/**
 * The MCP SDK 1.x side of `mcp-failures check server`: connects to the server under test (a
 * stdio child process or a Streamable HTTP URL) and makes raw `tools/call` requests, so the
 * checker sees each result exactly as it came. The SDK is loaded on first use: it is an optional
 * peer dependency, and without it the command says so in one line.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallAnswer, DeclarationSeen } from '../check/server.js';
import { TOOL_FAILURE_META_KEY } from '@omcp/tool-failure';
import { declaresExtension } from '@omcp/tool-failure';
import { discoverCapabilities, environment, type CheckTarget } from './check-server-discover.js';

export type { CheckTarget } from './check-server-discover.js';
import { REQUEST_TIMEOUT, firstLineOf } from '@omcp/tool-failure/wire';
import { toolsOfPage, walkToolListPages } from '@omcp/instrumentation-mcp/relay';
import { KIT_PACKAGE_VERSION } from '../check/version.js';

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

type ClientSdk = Awaited<ReturnType<typeof loadClientSdk>>;

/** The transport to `target`, and the last line the server wrote on its stderr (stdio only). */
function transportTo(
  sdk: ClientSdk,
  target: CheckTarget,
): { transport: Transport; lastStderrLine(): string } {
  if (target.kind === 'http')
    return {
      transport: new sdk.http.StreamableHTTPClientTransport(new URL(target.url)),
      lastStderrLine: () => '',
    };
  let lastStderrLine = '';
  const stdio = new sdk.stdio.StdioClientTransport({
    command: target.command,
    args: target.args,
    env: environment(),
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
  return { transport: stdio, lastStderrLine: () => lastStderrLine };
}

/** Connects to `target` within `timeoutMs`; rejects with `CheckConnectionError`. */
export async function connectToServer(
  target: CheckTarget,
  timeoutMs: number,
): Promise<CheckSession> {
  const sdk = await loadClientSdk();
  const { transport, lastStderrLine } = transportTo(sdk, target);
  const session = new SdkSession(sdk, target, timeoutMs, lastStderrLine);
  await session.open(transport);
  return session;
}

/** The session of `check server` on the SDK 1.x client. */
class SdkSession implements CheckSession {
  private readonly client: Client;
  private closed = false;
  /** Where the server is, in messages. */
  private readonly where: string;

  constructor(
    private readonly sdk: ClientSdk,
    private readonly target: CheckTarget,
    private readonly timeoutMs: number,
    private readonly lastStderrLine: () => string,
  ) {
    this.where = target.kind === 'stdio' ? `'${target.command}'` : target.url;
    this.client = new sdk.client.Client(
      { name: 'mcp-failures-check', version: KIT_PACKAGE_VERSION },
      { capabilities: {} },
    );
    this.client.onclose = () => (this.closed = true);
    this.client.onerror = () => undefined;
  }

  /** Connects over `transport` within the timeout; rejects with `CheckConnectionError`. */
  async open(transport: Transport): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.client.connect(transport, { timeout: this.timeoutMs }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer to initialize within ${this.timeoutMs} ms`)),
            this.timeoutMs,
          );
        }),
      ]);
    } catch (error) {
      void this.client.close().catch(() => undefined);
      throw new CheckConnectionError(
        `cannot connect to ${this.where}: ${firstLineOf(error)}${this.serverSaid()}`,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  async listTools(): Promise<string[]> {
    if (this.client.getServerCapabilities()?.tools === undefined) return [];
    const names: string[] = [];
    try {
      await walkToolListPages(
        (cursor) =>
          this.client.listTools(cursor === undefined ? {} : { cursor }, {
            timeout: this.timeoutMs,
          }),
        (page) => names.push(...toolsOfPage(page).map(([name]) => name)),
      );
    } catch (error) {
      throw this.closed
        ? this.lost(error)
        : new CheckConnectionError(`tools/list failed: ${firstLineOf(error)}`);
    }
    return names;
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<CallAnswer> {
    const { types } = this.sdk;
    try {
      const result = await this.client.request(
        { method: 'tools/call', params: { name, arguments: args } },
        types.ResultSchema,
        { timeout: this.timeoutMs },
      );
      return { kind: 'result', result };
    } catch (error) {
      if (this.closed) throw this.lost(error);
      if (!(error instanceof types.McpError))
        return { kind: 'no-answer', detail: firstLineOf(error) };
      if (error.code === REQUEST_TIMEOUT && /timed out/i.test(error.message))
        return { kind: 'no-answer', detail: `no answer within ${this.timeoutMs} ms` };
      const prefix = `MCP error ${error.code}: `;
      const message = error.message.startsWith(prefix)
        ? error.message.slice(prefix.length)
        : error.message;
      return error.data === undefined
        ? { kind: 'rpc-error', code: error.code, message }
        : { kind: 'rpc-error', code: error.code, message, data: error.data };
    }
  }

  async declaration(): Promise<DeclarationSeen> {
    const looked = ['initialize'];
    const notes: string[] = [];
    let declared = declaresExtension(this.client.getServerCapabilities(), TOOL_FAILURE_META_KEY);
    // Its own short connection, after the session's: one server process at a time.
    const discovery = await discoverCapabilities(this.target, this.timeoutMs);
    if (discovery.kind === 'discovered') {
      looked.push('server/discover (2026-07-28)');
      declared ||= declaresExtension(discovery.capabilities, TOOL_FAILURE_META_KEY);
    } else notes.push(discovery.why);
    return { declared, looked, notes };
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }

  private serverSaid(): string {
    const line = this.lastStderrLine();
    return line === '' ? '' : ` (server stderr: ${line})`;
  }

  private lost(error: unknown): CheckConnectionError {
    return new CheckConnectionError(
      `the connection to ${this.where} was lost: ${firstLineOf(error)}${this.serverSaid()}`,
    );
  }
}
