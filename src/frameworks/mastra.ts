/**
 * Tool failures in Mastra's MCP client (`@mastra/mcp` 2.x). No import of the framework: its
 * `MCPClient` is reached through the shape it has, and checked when wrapped.
 *
 * @module @omcp/instrumentation-mcp/frameworks/mastra
 */
import { requireFramework } from './peer.js';
import type { ToolRetry } from '../retry/with-tool-retry.js';
import { isRecord } from '@omcp/tool-failure/wire';
import { retryEngineOf, type FrameworkAdapterOptions } from './core.js';
import { FrameworkToolCalls } from './tool-calls.js';

requireFramework('mastra', '@mastra/mcp');

/** Options of `withToolFailures`. */
export type MastraToolFailureOptions = FrameworkAdapterOptions;

/**
 * What the adapter needs of a Mastra `MCPClient`: the table of its per-server connections
 * and the method that creates them. Both are part of `@mastra/mcp` 2.x's class, not of its
 * documented API, so they are checked when the client is wrapped.
 */
export interface MastraMcpClientLike {
  listTools(): Promise<unknown>;
}

/** The SDK `Client` inside one of Mastra's per-server connections. */
interface SdkClient {
  callTool(params: unknown, options?: unknown): Promise<unknown>;
  listTools(params?: unknown, options?: unknown): Promise<unknown>;
}

type CreateConnection = (name: string, config: unknown) => Promise<unknown>;

const ADAPTER = 'withToolFailures (mastra)';

const WRAPPED = new WeakSet<object>();

/**
 * Makes the tool calls of a Mastra `MCPClient` follow the tool-failure extension, in place,
 * and returns it: each call of every server's tools is retried on its class inside Mastra's
 * tool execution (transient reliability failures, before the model sees them; never
 * governance or capability ones), and with `modelNote: true` the failure note is added to the
 * result's text, which Mastra hands the model (as the `MastraError` text under the default
 * `onToolError: 'throw'`, as the result under `'return'`). Connections made before and after
 * the call are covered. Wrapping the same client again changes nothing.
 */
export function withToolFailures<M extends MastraMcpClientLike>(
  mcp: M,
  options?: MastraToolFailureOptions,
): M {
  const target = mcp as unknown as Record<string, unknown>;
  const connections: unknown = isRecord(mcp) ? target.mcpClientsById : undefined;
  const create: unknown = isRecord(mcp) ? target.getOrCreateClient : undefined;
  if (!(connections instanceof Map) || typeof create !== 'function')
    throw new TypeError(
      `${ADAPTER} expects an MCPClient of @mastra/mcp 2.x (with getOrCreateClient() and mcpClientsById); this object lacks them, so its tool calls cannot be reached`,
    );
  if (WRAPPED.has(mcp)) return mcp;
  // Mastra reconnects and retries thrown transport errors itself, so retryOnThrow is refused.
  // A bad option throws here, not at the first call. A policy gives each server's connection
  // an engine of its own (its own budget and circuits); an engine passed in is shared.
  retryEngineOf(ADAPTER, options?.retry, true);
  WRAPPED.add(mcp);
  const engineFor = (): ToolRetry | undefined => retryEngineOf(ADAPTER, options?.retry, true);
  for (const connection of connections.values()) wrapConnection(connection, engineFor, options);
  const original = create as CreateConnection;
  target.getOrCreateClient = async (name: string, config: unknown): Promise<unknown> => {
    const connection = await Reflect.apply(original, mcp, [name, config]);
    wrapConnection(connection, engineFor, options);
    return connection;
  };
  return mcp;
}

/**
 * Routes the `callTool` of one connection's SDK client through the adapter, and makes the tools
 * the connection builds hand their model no `_meta`, once.
 */
function wrapConnection(
  connection: unknown,
  engineFor: () => ToolRetry | undefined,
  options: FrameworkAdapterOptions | undefined,
): void {
  if (!isRecord(connection)) return;
  wrapToolMaking(connection);
  const client = connection.client as SdkClient | undefined;
  if (!isRecord(client) || typeof client.callTool !== 'function' || WRAPPED.has(client)) return;
  WRAPPED.add(client);
  const send = client.callTool.bind(client);
  const calls = new FrameworkToolCalls(engineFor(), options, (params) => client.listTools(params));
  // An own property of this client only: the SDK's prototype (and its instrumentation) stays.
  client.callTool = (params: unknown, callOptions?: unknown) =>
    isToolCall(params)
      ? calls.call(params, isRecord(callOptions) ? callOptions : undefined, (p, o) => send(p, o))
      : send(params, callOptions);
}

/**
 * The methods of a connection that build Mastra tools (`tools()` for discovery,
 * `toolFromDefinition()` for cached definitions; both `createTool` in `@mastra/mcp` 2.x), with
 * each tool they return given {@link hideMetaFromModel}. Own properties of this connection only.
 */
function wrapToolMaking(connection: Record<string, unknown>): void {
  if (WRAPPED.has(connection)) return;
  WRAPPED.add(connection);
  for (const method of ['tools', 'toolFromDefinition'] as const) {
    const original = connection[method];
    if (typeof original !== 'function') continue;
    const hide = method === 'tools' ? hideMetaInSet : hideMetaFromModel;
    // The tools are Mastra's whatever happens here: a failure to change them leaves them as made.
    const each = (made: unknown): unknown => {
      try {
        hide(made);
      } catch {
        // Left as Mastra made it.
      }
      return made;
    };
    connection[method] = (...args: unknown[]): unknown => {
      const made: unknown = Reflect.apply(original, connection, args);
      if (!(made instanceof Promise)) return each(made);
      return made.then(each);
    };
  }
}

function hideMetaInSet(set: unknown): unknown {
  if (isRecord(set)) for (const tool of Object.values(set)) hideMetaFromModel(tool);
  return set;
}

/**
 * Gives a Mastra tool a `toModelOutput` (Mastra's own hook, called with the tool's result; the
 * application's `toolResults` keep the result as it is) that hands the model the result without
 * its `_meta`: under `onToolError: 'return'` Mastra would give the model the whole result as
 * JSON, failure object and every other `_meta` key included. A tool's own `toModelOutput`
 * (Mastra's, for tools with an output schema, which shows `content` only) is kept.
 */
function hideMetaFromModel(tool: unknown): unknown {
  if (!isRecord(tool) || WRAPPED.has(tool)) return tool;
  WRAPPED.add(tool);
  const own = tool.toModelOutput;
  if (typeof own === 'function') return tool;
  tool.toModelOutput = modelOutputOf;
  return tool;
}

/**
 * What Mastra itself hands the model for a result (`{ type: 'text' }` for a string, else
 * `{ type: 'json' }` of the value), with a result's `_meta` left out. Never throws.
 */
function modelOutputOf(output: unknown): unknown {
  if (typeof output === 'string') return { type: 'text', value: output };
  if (!isRecord(output) || !Object.prototype.hasOwnProperty.call(output, '_meta'))
    return { type: 'json', value: output ?? null };
  try {
    const { _meta: _hidden, ...shown } = output;
    return { type: 'json', value: shown };
  } catch {
    // A result that cannot be copied is shown nothing of itself rather than its `_meta`.
    return { type: 'json', value: null };
  }
}

function isToolCall(params: unknown): params is { name: string } {
  return isRecord(params) && typeof params.name === 'string';
}
