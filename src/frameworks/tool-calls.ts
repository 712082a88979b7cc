// One logical tool call of a framework client, for adapters that reach the framework's own
// `tools/call` (Agents' `callToolResult`, the SDK client inside Mastra's connections): the one
// retry engine around it, then the model note in the result's content.
import type { ToolRetry, ToolRetryClient } from '../retry/with-tool-retry.js';
import { withNoteInResult } from '@omcp/tool-failure';
import { NoteAnnotations, type FrameworkAdapterOptions } from './core.js';

/** One `tools/call` as the framework sends it: its params and its request options. */
export type SendToolCall = (
  params: ToolCallParams,
  options: Record<string, unknown> | undefined,
) => Promise<unknown>;

/** The `tools/call` params the adapters pass on. */
export interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** One logical call's own state, carried to the engine's client beside the request options. */
interface CallState {
  send: SendToolCall;
  options: Record<string, unknown> | undefined;
  /** The last result the server answered with, in this logical call. */
  last?: unknown;
}

/** The key under which the call's state rides in the options the engine passes through. */
const CALL_STATE: unique symbol = Symbol('omcp.frameworks.call');

type CarriedOptions = Record<string, unknown> & { [CALL_STATE]: CallState };

/**
 * The tool calls of one framework client (an MCP server connection the framework owns): each
 * goes through the package's one retry engine, with one lifetime per wrapped client, and then
 * gets the model note when asked. The framework's own call is kept: the engine's client is a
 * `{ callTool }` shim that sends through it.
 */
export class FrameworkToolCalls {
  private readonly retrying: ToolRetryClient<EngineClient> | undefined;
  private readonly modelNote: boolean;
  private readonly outputs: boolean;
  private readonly annotations: NoteAnnotations;

  /**
   * `engine` is the wrapped client's (from `retryEngineOf`), `undefined` for no retries;
   * `listTools` lists the framework client's tools, for the engine's `idempotentHint` lookup.
   */
  constructor(
    engine: ToolRetry | undefined,
    options: FrameworkAdapterOptions | undefined,
    listTools: (params?: { cursor?: string }) => Promise<unknown>,
  ) {
    this.modelNote = options?.modelNote === true;
    this.outputs = options?.toolResultOutputs === true;
    const client: EngineClient = { callTool: shimCall, listTools };
    this.retrying = engine?.wrap(client);
    // The engine's client is the key of the tools' annotations, so its lookup and the note's
    // are one walk of tools/list.
    this.annotations = new NoteAnnotations(options?.retry, client, (cursor) =>
      listTools(cursor === undefined ? undefined : { cursor }),
    );
  }

  /**
   * One logical call. A thrown error after a retry has begun ends the call with the failure
   * the server last answered (the engine records the error): a framework's own
   * reconnect-and-retry, which follows thrown errors, then never stacks on this one.
   */
  async call(
    params: ToolCallParams,
    options: Record<string, unknown> | undefined,
    send: SendToolCall,
  ): Promise<unknown> {
    const result = await this.retried(params, options, send);
    if (!this.modelNote) return result;
    const tool = await this.annotations.of(params.name, result);
    return withNoteInResult(result, { outputs: this.outputs, ...tool });
  }

  private async retried(
    params: ToolCallParams,
    options: Record<string, unknown> | undefined,
    send: SendToolCall,
  ): Promise<unknown> {
    if (this.retrying === undefined) return send(params, options);
    const state: CallState = { send, options };
    const carried: CarriedOptions = { ...options, [CALL_STATE]: state };
    try {
      return await this.retrying.callTool(params, carried);
    } catch (error) {
      const signal = options?.signal as AbortSignal | undefined;
      if (state.last === undefined || signal?.aborted === true) throw error;
      return state.last;
    }
  }
}

/** The client the engine wraps: one attempt through the framework's call, its tool list. */
interface EngineClient {
  callTool: typeof shimCall;
  listTools: (params?: { cursor?: string }) => Promise<unknown>;
}

/** The engine's client: sends one attempt through the framework's own call. */
function shimCall(params: ToolCallParams, carried: CarriedOptions): Promise<unknown> {
  const state = carried[CALL_STATE];
  return state.send(params, state.options).then((result) => {
    state.last = result;
    return result;
  });
}
