/** Broad behavioural class of a tool failure; clients dispatch on it. */
export type ToolFailureClass = 'capability' | 'reliability' | 'governance';

/** The `io.modelcontextprotocol/toolFailure` object carried in `CallToolResult._meta`. */
export interface ToolFailure {
  /** The broad behavioural class of this failure. */
  class: ToolFailureClass;
  /** A specific, machine-readable failure code; an open string. */
  code: string;
  /** Whether a client MAY retry this exact call; only meaningful for `reliability`. */
  retryable?: boolean;
  /** Earliest time (Unix epoch milliseconds) at which a retry is likely to succeed. */
  retryNotBefore?: number;
  /** Opaque server-generated identifier correlating the failure with server telemetry. */
  correlationId: string;
  /** A short instruction for the calling model on how to proceed. */
  agentGuidance?: string;
  /** Keys this version does not know are kept as they came. */
  [extension: string]: unknown;
}

/** What an author gives `toolFailure()` or `new ToolFailureError()`. */
export interface ToolFailureInit {
  class: ToolFailureClass;
  code: string;
  /** Human-readable text placed in the result's `content`. Defaults to `agentGuidance`, else a generic line. */
  message?: string;
  agentGuidance?: string;
  retryable?: boolean;
  /** Epoch milliseconds or a `Date`. Requires `retryable: true`. */
  retryNotBefore?: number | Date;
  /** Defaults to the active span's trace ID, else a fresh random 32-hex ID. */
  correlationId?: string;
}

/** Extra parts of the result `toolFailure()` builds, besides the failure itself. */
export interface ToolFailureResultOptions<C extends { type: string } = TextContentBlock> {
  /** Content blocks placed after the text block carrying `message`. */
  content?: C[];
  /** Other `_meta` keys to carry alongside the failure object. */
  meta?: Record<string, unknown>;
  /** `structuredContent` to include, for tools that declare an output schema. */
  structuredContent?: Record<string, unknown>;
  /**
   * The `_meta` key to put the failure object under, when a deployment uses another key than
   * the proposal's (the instrumentation's `metaKey` option). @default TOOL_FAILURE_META_KEY
   */
  metaKey?: string;
}

/** A content block, as loose as the MCP schema allows. */
export interface ToolResultContent {
  type: string;
  [key: string]: unknown;
}

/** A text content block. */
export interface TextContentBlock {
  type: 'text';
  text: string;
}

/** The `CallToolResult` shape `toolFailure()` returns; assignable to the MCP SDKs' `CallToolResult`. */
export interface ToolFailureResult<C extends { type: string } = TextContentBlock> {
  content: Array<TextContentBlock | C>;
  isError: true;
  structuredContent?: Record<string, unknown>;
  _meta: Record<string, unknown>;
  [key: string]: unknown;
}

/** How far an object departs from the proposal: `error` breaks a MUST/REQUIRED, `warning` a SHOULD or a hint. */
export type ProblemSeverity = 'error' | 'warning';

/** One way a received failure object departs from the proposal. */
export interface ToolFailureProblem {
  /** Stable rule id, e.g. `TF-CORRELATION-REQUIRED` (see `TOOL_FAILURE_RULES`). */
  rule: string;
  severity: ProblemSeverity;
  /** One line, safe to log: it never echoes the offending value. */
  message: string;
}

/** What `readToolFailure()` found. */
export type ToolFailureReading =
  | { status: 'absent'; problems: ToolFailureProblem[] }
  | { status: 'valid'; failure: ToolFailure; problems: ToolFailureProblem[] }
  | { status: 'invalid'; raw: unknown; problems: ToolFailureProblem[] };

/** The class-level outcome of classifying a thrown error. */
export interface ErrorClassification {
  class: ToolFailureClass;
  code: string;
  retryable?: boolean;
  retryNotBefore?: number;
  /** Short, non-sensitive guidance for the calling model. */
  agentGuidance?: string;
}

/** A user classifier; return `undefined` to fall back to the built-in rules. */
export type ErrorClassifier = (error: unknown) => ErrorClassification | undefined;

/** The fields of a failure (or of a classified thrown error) the decision reads. */
export interface FailureSummary {
  class: ToolFailureClass;
  code: string;
  retryable?: boolean;
  retryNotBefore?: number;
  correlationId?: string;
}
