// `@omcp/instrumentation-mcp/frameworks/mastra`: tool failures in Mastra's MCP client
// (`@mastra/mcp` 2.x). No import of the framework: its `MCPClient` is reached through the
// shape it has, and checked when wrapped.
import { requireFramework } from './peer.js';
import { isRecord } from '../shared/safe.js';
import { FrameworkToolCalls, retryEngineOf, type FrameworkAdapterOptions } from './tool-calls.js';

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
      'withToolFailures (mastra) expects an MCPClient of @mastra/mcp 2.x (with getOrCreateClient() and mcpClientsById); this one has neither, so its tool calls cannot be reached',
    );
  if (WRAPPED.has(mcp)) return mcp;
  WRAPPED.add(mcp);
  // One engine per MCPClient, as the options name one: its budget protects all its servers.
  const shared: FrameworkAdapterOptions = {
    ...options,
    retry: retryEngineOf(options?.retry) ?? false,
  };
  for (const connection of connections.values()) wrapConnection(connection, shared);
  const original = create as CreateConnection;
  target.getOrCreateClient = async (name: string, config: unknown): Promise<unknown> => {
    const connection = await Reflect.apply(original, mcp, [name, config]);
    wrapConnection(connection, shared);
    return connection;
  };
  return mcp;
}

/** Routes the `callTool` of one connection's SDK client through the adapter, once. */
function wrapConnection(connection: unknown, options: FrameworkAdapterOptions): void {
  if (!isRecord(connection)) return;
  const client = connection.client as SdkClient | undefined;
  if (!isRecord(client) || typeof client.callTool !== 'function' || WRAPPED.has(client)) return;
  WRAPPED.add(client);
  const send = client.callTool.bind(client);
  const calls = new FrameworkToolCalls(options, (params) => client.listTools(params));
  // An own property of this client only: the SDK's prototype (and its instrumentation) stays.
  client.callTool = (params: unknown, callOptions?: unknown) =>
    isToolCall(params)
      ? calls.call(params, isRecord(callOptions) ? callOptions : undefined, (p, o) => send(p, o))
      : send(params, callOptions);
}

function isToolCall(params: unknown): params is { name: string } {
  return isRecord(params) && typeof params.name === 'string';
}
