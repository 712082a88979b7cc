/**
 * LangChain.js through `@langchain/mcp-adapters`. Its tools call `client.callTool` of the MCP SDK
 * client they are loaded from (`loadMcpTools`), and its `afterToolCall` hook never sees a failed
 * call (the result is turned into a `ToolException` first), so the adapter wraps that client: retry
 * on the failure's class, and, opt-in, a failed call handed on as data (text, note, and the failure
 * object in the artifact). No runtime import of LangChain.
 *
 * @module @omcp/instrumentation-mcp/frameworks/langchain
 */
import { requireFramework } from './peer.js';
import {
  failedCallNote,
  NoteAnnotations,
  retryEngineOf,
  withEngine,
  type FrameworkAdapterOptions,
} from './core.js';
import {
  readToolFailure,
  TOOL_FAILURE_META_KEY,
  type ModelNoteOptions,
  type ResultOutputsOptions,
} from '@omcp/tool-failure';
import { isRecord, ownData } from '@omcp/tool-failure/wire';
import { hasAssistantOutput, modelContentOf, outputsOf } from '@omcp/tool-failure';
import type { RetryableClient } from '../retry/with-tool-retry.js';
import type { ToolFailure } from '@omcp/tool-failure';

requireFramework('langchain', '@langchain/mcp-adapters');

const ADAPTER = '@omcp/instrumentation-mcp/frameworks/langchain';

/** The options of `withToolFailures` (the same in every adapter). */
export type LangChainToolFailureOptions = FrameworkAdapterOptions;

/**
 * The MCP SDK client that `loadMcpTools(serverName, client)` loads tools from (yours, or
 * `await multiServerClient.getClient(serverName)`), with its `callTool` dispatching failures on
 * their class through one retry engine for this client: a transient reliability failure is
 * retried before the model sees it, capability and governance failures are returned at once.
 *
 * With `modelNote: true`, a failed call that carries a valid failure object reaches LangChain as
 * an ordinary result, so `@langchain/mcp-adapters` makes a `ToolMessage` instead of throwing its
 * `ToolException`: the content is the server's content and the failure note as one more text
 * block, and the artifact holds the result's `_meta` (`{ type: 'mcp_meta', data }`) with the
 * failure object (`toolFailureOfArtifact`). Failed calls without one are left as they are.
 */
export function withToolFailures<C extends RetryableClient>(
  client: C | undefined,
  options: LangChainToolFailureOptions = {},
): C {
  // `MultiServerMCPClient.getClient` resolves to undefined for a server it did not connect.
  if (client === undefined)
    throw new TypeError(
      `${ADAPTER}: withToolFailures got no client: is the server name in the MultiServerMCPClient configuration, and did it connect?`,
    );
  if (typeof client !== 'object' || client === null || typeof client.callTool !== 'function')
    throw new TypeError(
      `${ADAPTER}: withToolFailures expects an MCP SDK Client (an object with callTool()), e.g. await multiServerClient.getClient(serverName)`,
    );
  // @langchain/mcp-adapters retries nothing itself: thrown errors may be retried by the policy.
  const inner = withEngine(retryEngineOf(ADAPTER, options.retry, false), client);
  if (options.modelNote !== true) return inner;
  const shape: ResultOutputsOptions = { outputs: options.toolResultOutputs === true };
  // The SDK client is the engine's key too: the instrumentation has its tools/list pages.
  const listTools = client.listTools;
  const annotations = new NoteAnnotations(
    options.retry,
    client,
    typeof listTools === 'function'
      ? (cursor) =>
          Reflect.apply(
            listTools,
            client,
            cursor === undefined ? [] : [{ cursor }],
          ) as Promise<unknown>
      : undefined,
  );
  const callTool = async (...args: unknown[]): Promise<unknown> => {
    const result: unknown = await Reflect.apply(inner.callTool, inner, args);
    const params: unknown = args[0];
    const name = isRecord(params) ? ownData(params, 'name') : undefined;
    const tool = typeof name === 'string' ? await annotations.of(name, result) : {};
    return asToolMessageResult(result, { ...shape, ...tool });
  };
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'callTool') return callTool;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}

/**
 * The failure object a `ToolMessage` artifact carries (the `mcp_meta` entry a failed call got
 * through `withToolFailures` with `modelNote`), checked like any received one, or `undefined`.
 */
export function toolFailureOfArtifact(artifact: unknown): ToolFailure | undefined {
  if (!Array.isArray(artifact)) return undefined;
  for (const entry of artifact as unknown[]) {
    if (!isRecord(entry) || ownData(entry, 'type') !== 'mcp_meta') continue;
    const meta = ownData(entry, 'data');
    if (!isRecord(meta) || ownData(meta, TOOL_FAILURE_META_KEY) === undefined) continue;
    const reading = readToolFailure({ isError: true, content: [], _meta: meta });
    return reading.status === 'valid' ? reading.failure : undefined;
  }
  return undefined;
}

/**
 * A failed call with a valid failure object as a result LangChain hands on: a copy without
 * `isError`, the content the model may see (with `outputs`, the `assistant/content` outputs')
 * followed by the note. At least two text blocks, because a single one would be made into one
 * JSON string with `_meta` in it, which the model must not see. A call whose outputs have none
 * for the model (code mode) is left as it is.
 */
function asToolMessageResult(result: unknown, shape: ModelNoteOptions): unknown {
  const note = failedCallNote(result, shape);
  if (note === undefined || !isRecord(result)) return result;
  const outputs = outputsOf(result, shape);
  if (outputs !== undefined && !hasAssistantOutput(outputs)) return result;
  const blocks = modelContentOf(result, shape);
  if (!blocks.some((b) => isRecord(b) && ownData(b, 'type') === 'text'))
    blocks.unshift({ type: 'text', text: '' });
  const copy: Record<string, unknown> = {
    ...result,
    content: [...blocks, { type: 'text', text: note }],
  };
  delete copy.isError;
  return copy;
}
