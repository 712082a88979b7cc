// What every framework adapter shares: its options, the retry engine of a wrapped client, and
// which results get the model note.
import { createToolRetry, type RetryableClient, type ToolRetry } from '../retry/with-tool-retry.js';
import type { ToolRetryPolicy } from '../retry/types.js';
import {
  readToolFailure,
  retryPermissionOf,
  toolFailureNoteOf,
  type ToolFailureNoteOptions,
  type ToolRetryHints,
} from '@omcp/tool-failure';
import { isRecord, ownData } from '@omcp/tool-failure/wire';
import {
  getToolAnnotations,
  hintsOf,
  retryHintsOf,
  type ListToolsPage,
} from '../shared/tool-annotations.js';

/** The options every framework adapter takes, named alike in each. */
export interface FrameworkAdapterOptions {
  /**
   * Append the failure note (`toolFailureNote`, docs/extension.md "Showing a failure to a
   * model") to what the framework hands its model for a failed call. Opt-in. @default false
   */
  modelNote?: boolean;
  /**
   * Results with `outputs` (the open result-variants SEP, docs/extension.md "Beside outputs"):
   * the note goes into the model's part of them, the `assistant` outputs, and what the framework
   * hands its model is that part. Off while the SEP is open. @default false
   */
  toolResultOutputs?: boolean;
  /**
   * Retry on the failure's class inside the framework's tool execution: a policy (one engine is
   * created for the wrapped client), an engine to share with other clients, or `false` for none.
   * Where the framework's client retries the errors it throws (the AI SDK's `maxRetries`), a
   * policy may not set `retryOnThrow`, so the two never retry the same thing.
   * @default {} (the default policy)
   */
  retry?: ToolRetryPolicy | ToolRetry | false;
}

/**
 * The engine of one wrapped client, or `undefined` for `retry: false`. A policy is checked here,
 * so a bad one fails when the client is wrapped, not at its first call. `retriesThrown`: the
 * framework retries thrown errors itself, so `retryOnThrow` would stack on it.
 */
export function retryEngineOf(
  adapter: string,
  retry: FrameworkAdapterOptions['retry'],
  retriesThrown: boolean,
): ToolRetry | undefined {
  if (retry === false) return undefined;
  if (retry === undefined) return createToolRetry({});
  if (typeof retry !== 'object' || retry === null)
    throw new TypeError(
      `${adapter}: retry must be a retry policy, an engine from createToolRetry, or false`,
    );
  if (isEngine(retry)) return retry;
  if (retriesThrown && retry.retryOnThrow !== undefined && retry.retryOnThrow !== false)
    throw new RangeError(
      `${adapter}: retryOnThrow is not allowed here: the framework's client retries the errors it throws, and the attempts would multiply`,
    );
  return createToolRetry(retry);
}

/** Wraps `client` in `engine`, or returns it as it is without one. */
export function withEngine<C extends RetryableClient>(engine: ToolRetry | undefined, client: C): C {
  return engine === undefined ? client : engine.wrap(client);
}

function isEngine(value: object): value is ToolRetry {
  return (
    typeof (value as Partial<ToolRetry>).wrap === 'function' &&
    typeof (value as Partial<ToolRetry>).rememberToolList === 'function'
  );
}

/**
 * The model note of a failed call (`isError: true` with a valid failure object), for the tool
 * with `options.annotations`, else `undefined`: an ordinary result never gets a note, whatever
 * its `_meta` holds. Never throws.
 */
export function failedCallNote(
  result: unknown,
  options?: ToolFailureNoteOptions,
): string | undefined {
  if (!isRecord(result) || ownData(result, 'isError') !== true) return undefined;
  return toolFailureNoteOf(result, options);
}

/**
 * Where an adapter finds the annotations its note needs (the note's `retry:` line follows the
 * proposal's rule, `retryPermissionOf`), from the same places as the retry engine: the policy's
 * `getToolAnnotations`, else what was listed for `key` (by the instrumentation, the engine or the
 * framework), else one walk of `tools/list` through `listPage`. `key` is the object the adapter's
 * engine wraps, so the engine's walk and the note's are one.
 */
export class NoteAnnotations {
  constructor(
    private readonly retry: FrameworkAdapterOptions['retry'],
    private readonly key: object,
    private readonly listPage: ListToolsPage | undefined,
  ) {}

  /**
   * The note options for `result` of `toolName`: the tool's annotations when they decide the
   * note (a retryable reliability failure), looked up only then; unknown when nothing answers,
   * which the note counts as not idempotent. Never throws.
   */
  async of(toolName: string, result: unknown): Promise<ToolFailureNoteOptions> {
    try {
      const reading = readToolFailure(result);
      if (reading.status !== 'valid') return {};
      if (retryPermissionOf(reading.failure, undefined) !== 'not_idempotent') return {};
      return { annotations: await this.lookup(toolName) };
    } catch {
      return {};
    }
  }

  private async lookup(toolName: string): Promise<ToolRetryHints | undefined> {
    const retry = this.retry;
    const provider =
      typeof retry === 'object' && retry !== null && !isEngine(retry)
        ? retry.getToolAnnotations
        : undefined;
    if (provider !== undefined) return hintsOf(await provider(toolName));
    if (this.listPage === undefined) return hintsOf(getToolAnnotations(this.key, toolName));
    return retryHintsOf(this.key, toolName, this.listPage);
  }
}
