import { createToolFailure, failureMessageOf, toolFailureResult } from './build.js';
import type {
  TextContentBlock,
  ToolFailure,
  ToolFailureClass,
  ToolFailureInit,
  ToolFailureResult,
  ToolFailureResultOptions,
} from './types.js';

/** Options for `ToolFailureError`, besides the failure fields. */
export interface ToolFailureErrorInit extends Omit<ToolFailureInit, 'correlationId'> {
  /** The underlying error, kept for server-side diagnostics only. */
  cause?: unknown;
}

/**
 * An error a tool handler throws to fail with a given classification. The server
 * instrumentation turns it into exactly the failure it describes; its `cause` and
 * stack stay on the server.
 */
export class ToolFailureError extends Error {
  override name = 'ToolFailureError';
  readonly failureClass: ToolFailureClass;
  readonly code: string;
  readonly agentGuidance: string | undefined;
  readonly retryable: boolean | undefined;
  readonly retryNotBefore: number | undefined;

  constructor(init: ToolFailureErrorInit) {
    super(failureMessageOf(init), init.cause === undefined ? undefined : { cause: init.cause });
    // Validate now, so a mistake shows where the error is created, not where it is caught.
    const probe = createToolFailure({ ...init, correlationId: 'probe' });
    this.failureClass = probe.class;
    this.code = probe.code;
    this.agentGuidance = probe.agentGuidance;
    this.retryable = probe.retryable;
    this.retryNotBefore = probe.retryNotBefore;
  }

  /** The failure object, with the given correlation ID (default: the active trace ID). */
  toToolFailure(correlationId?: string): ToolFailure {
    return createToolFailure({
      class: this.failureClass,
      code: this.code,
      agentGuidance: this.agentGuidance,
      retryable: this.retryable,
      retryNotBefore: this.retryNotBefore,
      correlationId,
    });
  }

  /** The `CallToolResult` this error stands for. */
  toResult<C extends { type: string } = TextContentBlock>(
    options?: ToolFailureResultOptions<C> & { correlationId?: string },
  ): ToolFailureResult<C> {
    return toolFailureResult(this.toToolFailure(options?.correlationId), this.message, options);
  }
}

/** True for a `ToolFailureError` from any copy of this package (ESM and CJS builds included). */
export function isToolFailureError(error: unknown): error is ToolFailureError {
  return (
    error instanceof ToolFailureError ||
    (error instanceof Error &&
      error.name === 'ToolFailureError' &&
      'failureClass' in error &&
      'code' in error)
  );
}
