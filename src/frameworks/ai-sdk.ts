/**
 * The Vercel AI SDK's MCP client (`@ai-sdk/mcp` `createMCPClient`), with retry on the failure's
 * class inside each tool's `execute` and, opt-in, the failure note in what the tool's own
 * `toModelOutput` hands the model. No runtime import of the AI SDK: its objects are used through
 * the shapes below.
 *
 * @module @omcp/instrumentation-mcp/frameworks/ai-sdk
 */
import { diag } from '@opentelemetry/api';
import { requireFramework } from './peer.js';
import {
  failedCallNote,
  NoteAnnotations,
  retryEngineOf,
  withEngine,
  type FrameworkAdapterOptions,
} from './core.js';
import type { RetryableClient } from '../retry/with-tool-retry.js';
import { withNoteInResult, type ResultOutputsOptions } from '@omcp/tool-failure';
import { outputsOf } from '@omcp/tool-failure';

requireFramework('ai-sdk', '@ai-sdk/mcp');

const ADAPTER = '@omcp/instrumentation-mcp/frameworks/ai-sdk';

export type { FrameworkAdapterOptions } from './core.js';

/** The options of `withToolFailures` (the same in every adapter). */
export type AiSdkToolFailureOptions = FrameworkAdapterOptions;

/** The part of an `@ai-sdk/mcp` `MCPClient` the adapter uses. */
export interface AiSdkMcpClient {
  tools(...args: never[]): Promise<object>;
  toolsFromDefinitions?(...args: never[]): object;
  listTools?(...args: never[]): Promise<unknown>;
}

/** The options the AI SDK passes a tool's `execute` (the part the adapter reads). */
interface ToolExecuteOptions {
  abortSignal?: AbortSignal;
}

type Execute = (input: unknown, options?: ToolExecuteOptions) => unknown;
type ToModelOutput = (options: { output: unknown }) => unknown;

/** One attempt of a tool call: the tool's own `execute`, as the AI SDK would call it. */
interface Attempt {
  /** Read by the engine (it looks for `signal` in the call options), so a wait ends on abort. */
  signal: AbortSignal | undefined;
  run: () => Promise<unknown>;
}

/** The client the engine wraps: each call is handed the attempt to run. */
interface AttemptRunner extends RetryableClient {
  callTool(params: { name: string; arguments?: unknown }, attempt: Attempt): Promise<unknown>;
}

/**
 * `client` with the tools it makes (`tools()`, `toolsFromDefinitions()`) dispatching failures on
 * their class: each call runs the AI SDK's own `execute` through one retry engine for this client,
 * so a transient reliability failure is retried before the model sees it and capability and
 * governance failures are returned at once. With `modelNote: true`, the tool's own
 * `toModelOutput` keeps the server's content and gets the failure note as one more text part.
 * The result (`toolResults[].output`) is the server's `CallToolResult`, unchanged, with its
 * `_meta` failure object; `toolCallReportOf(output)` gives the attempts. Everything else on
 * `client` works as before.
 */
export function withToolFailures<C extends AiSdkMcpClient>(
  client: C,
  options: AiSdkToolFailureOptions = {},
): C {
  if (typeof client !== 'object' || client === null || typeof client.tools !== 'function')
    throw new TypeError(
      `${ADAPTER}: withToolFailures expects the client of createMCPClient (an object with tools())`,
    );
  const tools = new AiSdkToolWrapper(client, options);
  return new Proxy(client, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop === 'tools')
        return async (...args: unknown[]) =>
          tools.wrapSet(await Reflect.apply(value, target, args));
      if (prop === 'toolsFromDefinitions')
        return (...args: unknown[]) => tools.wrapSet(Reflect.apply(value, target, args));
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

/** The tool sets of one wrapped client, and the one retry engine their calls share. */
class AiSdkToolWrapper {
  private readonly caller: AttemptRunner | undefined;
  private readonly modelNote: boolean;
  private readonly shape: ResultOutputsOptions;
  private readonly annotations: NoteAnnotations;

  constructor(client: AiSdkMcpClient, options: AiSdkToolFailureOptions) {
    // The AI SDK client retries what it throws (its maxRetries): the engine takes results only.
    const engine = retryEngineOf(ADAPTER, options.retry, true);
    this.modelNote = options.modelNote === true;
    this.shape = { outputs: options.toolResultOutputs === true };
    const runner = attemptRunner(client);
    this.caller = engine === undefined ? undefined : withEngine(engine, runner);
    // The runner is the engine's client: the key of the annotations both look up.
    const listTools = runner.listTools;
    this.annotations = new NoteAnnotations(
      options.retry,
      runner,
      listTools === undefined
        ? undefined
        : (cursor) => listTools(cursor === undefined ? undefined : { cursor }),
    );
  }

  /**
   * A copy of the tool set with each tool wrapped; anything not a tool is kept as it is. A set
   * that cannot be copied is handed back unwrapped, with one warning: the tools still work.
   */
  wrapSet(set: unknown): unknown {
    if (typeof set !== 'object' || set === null) return set;
    try {
      const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (const [name, tool] of Object.entries(set))
        out[name] = typeof tool === 'object' && tool !== null ? this.wrapTool(name, tool) : tool;
      return out;
    } catch (error) {
      diag.warn(
        `${ADAPTER}: the tool set could not be wrapped; its tools run without retry or note`,
        error,
      );
      return set;
    }
  }

  private wrapTool(name: string, tool: object): object {
    const execute = (tool as { execute?: unknown }).execute;
    const toModelOutput = (tool as { toModelOutput?: unknown }).toModelOutput;
    const wrapped: Record<string, unknown> = { ...tool };
    const caller = this.caller;
    if (caller !== undefined && typeof execute === 'function')
      wrapped.execute = (input: unknown, options?: ToolExecuteOptions) => {
        const attempt: Attempt = {
          signal: options?.abortSignal,
          run: async () => Reflect.apply(execute as Execute, tool, [input, options]),
        };
        return caller.callTool({ name, arguments: input }, attempt);
      };
    const shape = this.shape;
    const annotations = this.annotations;
    if (this.modelNote && typeof toModelOutput === 'function')
      wrapped.toModelOutput = async (arg: { output: unknown }) => {
        const note = { ...shape, ...(await annotations.of(name, arg.output)) };
        // A result with variants: the tool's own conversion gets the model's part of it (its
        // `content` is the assistant outputs' blocks, with the note), never the other outputs.
        if (outputsOf(arg.output, shape) !== undefined)
          return Reflect.apply(toModelOutput as ToModelOutput, tool, [
            { ...arg, output: withNoteInResult(arg.output, note) },
          ]) as unknown;
        return withNote(
          await Reflect.apply(toModelOutput as ToModelOutput, tool, [arg]),
          failedCallNote(arg.output, note),
        );
      };
    return wrapped;
  }
}

/**
 * What the engine wraps: `callTool` runs the attempt it is handed (the tool's own `execute`);
 * `listTools` is the client's, so the engine learns the tools' `idempotentHint`.
 */
function attemptRunner(client: AiSdkMcpClient): AttemptRunner {
  const runner: AttemptRunner = { callTool: (_params, attempt) => attempt.run() };
  const listTools = client.listTools;
  if (typeof listTools === 'function')
    runner.listTools = (params?: { cursor?: string }): Promise<unknown> =>
      Reflect.apply(listTools, client, [
        params?.cursor === undefined ? undefined : { params: { cursor: params.cursor } },
      ]) as Promise<unknown>;
  return runner;
}

/**
 * The model output the tool's own `toModelOutput` made, with the note of a failed call (from
 * `failedCallNote`) after the server's content: one more text part (`content`) or a blank line
 * and the note (`text`). Any other output, or no note, is returned as it is.
 */
function withNote(modelOutput: unknown, note: string | undefined): unknown {
  if (note === undefined || typeof modelOutput !== 'object' || modelOutput === null)
    return modelOutput;
  const { type, value } = modelOutput as { type?: unknown; value?: unknown };
  if (type === 'content' && Array.isArray(value))
    return { ...modelOutput, value: [...(value as unknown[]), { type: 'text', text: note }] };
  if (type === 'text' && typeof value === 'string')
    return { ...modelOutput, value: value === '' ? note : `${value}\n\n${note}` };
  return modelOutput;
}
