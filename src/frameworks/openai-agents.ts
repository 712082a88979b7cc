/**
 * Tool failures in the OpenAI Agents SDK (`@openai/agents-core`, also re-exported by
 * `@openai/agents`). No import of the framework: its MCP servers are reached through the shape they
 * share.
 *
 * @module @omcp/instrumentation-mcp/frameworks/openai-agents
 */
import { requireFramework } from './peer.js';
import { isRecord } from '@omcp/tool-failure/wire';
import { readToolFailure } from '@omcp/tool-failure';
import type { ToolFailure } from '@omcp/tool-failure';
import { retryEngineOf, type FrameworkAdapterOptions } from './core.js';
import { FrameworkToolCalls } from './tool-calls.js';

requireFramework('openai-agents', '@openai/agents-core');

/** Options of `withToolFailures`. */
export type OpenAIAgentsToolFailureOptions = FrameworkAdapterOptions;

/** The key of the failure object in a tool call output item's `customData`. */
export const TOOL_FAILURE_CUSTOM_DATA_KEY = 'toolFailure';

/**
 * What the adapter needs of an Agents MCP server (`MCPServerStdio`, `MCPServerStreamableHttp`,
 * `MCPServerSSE`): `callToolResult`, which every tool call of the Runner goes through once a
 * `customDataExtractor` is set, and `listTools`.
 */
export interface AgentsMcpServerLike {
  callToolResult?: (...args: never[]) => Promise<unknown>;
  listTools(): Promise<unknown>;
}

type CallToolResult = (
  toolName: string,
  args?: Record<string, unknown> | null,
  meta?: Record<string, unknown> | null,
  options?: Record<string, unknown>,
) => Promise<unknown>;

type CustomDataExtractor = (context: Record<string, unknown>) => unknown;

const WRAPPED = new WeakSet<object>();

/**
 * Makes an Agents MCP server's tool calls follow the tool-failure extension, in place, and
 * returns it: each call is retried on its class (transient reliability failures, before the
 * model sees them; never governance or capability ones), the failure object is put in the
 * output item's `customData.toolFailure` (through the server's `customDataExtractor`, the
 * application's own one kept), and with `modelNote: true` the text the model gets ends with
 * the failure note. Wrapping the same server again changes nothing.
 */
export function withToolFailures<S extends AgentsMcpServerLike>(
  server: S,
  options?: OpenAIAgentsToolFailureOptions,
): S {
  const original: unknown = isRecord(server) ? server.callToolResult : undefined;
  if (typeof original !== 'function' || typeof server.listTools !== 'function')
    throw new TypeError(
      'withToolFailures (openai-agents) expects an MCP server of @openai/agents-core 0.20 (MCPServerStdio, MCPServerStreamableHttp, MCPServerSSE) with callToolResult() and listTools()',
    );
  if (WRAPPED.has(server)) return server;
  // Agents' Streamable HTTP server reconnects and resends on a thrown "not connected" itself.
  // A bad option throws here, before the server is changed.
  const engine = retryEngineOf('withToolFailures (openai-agents)', options?.retry, true);
  WRAPPED.add(server);
  const send = original as CallToolResult;
  const calls = new FrameworkToolCalls(engine, options, async () => ({
    tools: await server.listTools(),
  }));
  const callToolResult: CallToolResult = async (toolName, args, meta, callOptions) =>
    withContentMetadata(
      await calls.call(
        { name: toolName, arguments: args ?? {}, ...(meta == null ? {} : { _meta: meta }) },
        callOptions,
        (params, sendOptions) =>
          Reflect.apply(send, server, [params.name, params.arguments, params._meta, sendOptions]),
      ),
    );
  const target = server as unknown as Record<string, unknown>;
  target.callToolResult = callToolResult;
  target.customDataExtractor = withFailureData(target.customDataExtractor);
  return server;
}

/** The result fields Agents attaches to `content` (non-enumerable) for its `callTool()`. */
const CONTENT_METADATA = ['_meta', 'structuredContent', 'isError'] as const;

/**
 * `result` with those fields on its `content` as Agents' own `callToolResult` leaves them, for
 * a content array the note replaced (its `callTool()` returns the content alone).
 */
function withContentMetadata(result: unknown): unknown {
  if (!isRecord(result) || !Array.isArray(result.content)) return result;
  const content = result.content as unknown[];
  for (const key of CONTENT_METADATA) {
    if (result[key] === undefined || Object.prototype.hasOwnProperty.call(content, key)) continue;
    Object.defineProperty(content, key, {
      value: result[key],
      enumerable: false,
      configurable: true,
    });
  }
  return result;
}

/** The application's extractor (if any), its data kept, with the failure object added. */
function withFailureData(own: unknown): CustomDataExtractor {
  return async (context) => {
    const data: unknown =
      typeof own === 'function' ? await (own as CustomDataExtractor)(context) : undefined;
    const failure = failureOf(context);
    if (failure === undefined) return data;
    return { ...(isRecord(data) ? data : {}), [TOOL_FAILURE_CUSTOM_DATA_KEY]: failure };
  };
}

/** The valid failure object of the call the extractor is told about. */
function failureOf(context: Record<string, unknown>): ToolFailure | undefined {
  if (context.isError !== true) return undefined;
  const reading = readToolFailure({ isError: true, _meta: context.resultMeta });
  return reading.status === 'valid' ? { ...reading.failure } : undefined;
}
