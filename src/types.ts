import type { Span } from '@opentelemetry/api';
import type { InstrumentationConfig } from '@opentelemetry/instrumentation';
import type { ErrorClassifier, ToolFailure } from '@omcp/tool-failure';
import type { ClassificationRule } from '@omcp/tool-failure';

/** What a hook is told about one MCP request. */
export interface McpRequestInfo {
  /** `client` for requests this process sends, `server` for requests it receives. */
  side: 'client' | 'server';
  /** The JSON-RPC method, e.g. `tools/call`. */
  method: string;
  /** The tool or prompt name, when the method concerns one. */
  target?: string;
  /** The request's `params` as sent or received. Do not mutate. */
  params: unknown;
}

/** What a response hook is told, in addition to the request. */
export interface McpResponseInfo extends McpRequestInfo {
  /** The JSON-RPC result, when there is one. Do not mutate. */
  result?: unknown;
  /** The error thrown or the JSON-RPC error received, when there is one. */
  error?: unknown;
  /** The failure object carried by the result, when valid. */
  failure?: ToolFailure;
}

/** A hook called with the span and what is known of the call. Errors it throws are logged and ignored. */
export type McpSpanHook<Info> = (span: Span, info: Info) => void;

/** Configuration of `McpInstrumentation`. Every option is optional. */
export interface McpInstrumentationConfig extends InstrumentationConfig {
  /**
   * Record tool arguments and successful results as `gen_ai.tool.call.arguments` /
   * `gen_ai.tool.call.result`. Sensitive: off unless set, or
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
   * @default false
   */
  captureToolPayloads?: boolean;
  /** Called after a span starts, for every request either side. */
  requestHook?: McpSpanHook<McpRequestInfo>;
  /** Called before a span ends, with the result or error. */
  responseHook?: McpSpanHook<McpResponseInfo>;
  /**
   * Classifies errors a tool handler throws, before the built-in rules (`classifyError`).
   * Return `undefined` to fall back to them.
   */
  errorClassifier?: ErrorClassifier;
  /**
   * Classification rules as data, applied after `errorClassifier` and before the built-in
   * rules: a path to a JSON file (`{ "rules": [...] }`) or the rules themselves. Each bad rule
   * is left out with one diagnostic WARN. Also `OTEL_INSTRUMENTATION_MCP_CLASSIFICATION_RULES`
   * (a path) with the zero-code entry. See docs/classification.md.
   */
  classificationRules?: string | readonly ClassificationRule[];
  /**
   * Apply the package's classification rules for well-known servers (the MCP reference servers),
   * each when the server's own `serverInfo.name` matches; after `errorClassifier` and
   * `classificationRules`. Also `OTEL_INSTRUMENTATION_MCP_RULE_PACKS=false` with the zero-code
   * entry. See docs/classification.md, "Rule packs".
   * @default true
   */
  builtInRulePacks?: boolean;
  /**
   * On the server, add a failure object to `tools/call` error results that lack one
   * (thrown errors, unknown tools, invalid arguments). Its `correlationId` is the trace ID.
   * @default true
   */
  addFailureObjects?: boolean;
  /**
   * On the server, declare the extension in `capabilities.extensions` (under `metaKey`, with the
   * settings object `{}`) of every `server/discover` result, and of an `initialize` result of a
   * revision that has the field (2026-07-28 and later); older revisions do not define it, so
   * nothing is added there. A copy of the result; a declaration the server made itself is kept.
   * Also `OTEL_INSTRUMENTATION_MCP_DECLARE_EXTENSION=false` with the zero-code entry.
   * @default true
   */
  declareExtension?: boolean;
  /**
   * Parent server spans on the trace context found in `params._meta`. When false, a server
   * span starts a new trace and links to the incoming context instead, so a client cannot
   * choose the server's trace ID.
   * @default true
   */
  trustIncomingContext?: boolean;
  /**
   * Inject the active trace context into `params._meta` of outgoing requests.
   * @default true
   */
  propagateContext?: boolean;
  /**
   * The `_meta` key of the failure object.
   * @default 'io.modelcontextprotocol/toolFailure'
   */
  metaKey?: string;
  /**
   * Failure codes reported by name on metrics besides the baseline vocabulary and the
   * package's own codes; any other code is reported as `_OTHER`.
   * @default []
   */
  metricCodeAllowList?: string[];
  /**
   * Longest string recorded for `mcp.tool.failure.agent_guidance` and other free-text attributes.
   * @default 256
   */
  maxAttributeLength?: number;
  /**
   * Emit an OpenTelemetry log record (Logs API) for each server-side tool failure, with the
   * exception details and the trace context, so server logs hold a line keyed by the correlationId
   * (in a failure storm, up to `maxFailureLogsPerSecond`).
   * @default true
   */
  emitFailureLogs?: boolean;
  /**
   * Where an error thrown by a handler or tool callback is recorded, following the exception
   * semantic conventions (exceptions on spans are deprecated in favour of logs):
   * `'logs'` as `exception.*` attributes of the failure log record only; `'logs/dup'` also as an
   * `exception` event on the server span, for backends that show span events but not logs.
   * With `emitFailureLogs: false` exceptions are recorded as span events, so they are never lost.
   * @default from `OTEL_SEMCONV_EXCEPTION_SIGNAL_OPT_IN` (`logs` or `logs/dup`), else `'logs'`
   */
  exceptionSignal?: 'logs' | 'logs/dup';
  /**
   * How many thrown errors per second, per tool and exception type, have their stack trace
   * recorded (`exception.stacktrace` on the failure log record, or in the `exception` span
   * event). Beyond it, in a failure storm, the record keeps everything else (type, message,
   * cause, the failure object) and only the stack is left out: formatting it is the largest
   * single cost of a failure. `Infinity` records every stack; `0` none.
   * @default 10
   */
  maxStackTracesPerSecond?: number;
  /**
   * How many failure log records per second, per tool, failure code and exception type, the
   * server emits. Every failure still has its span (with the failure attributes and the thrown
   * message as status) and is counted by `mcp.server.tool.failures`; beyond the budget, in a
   * failure storm, the record is left out, and the next record of the same tool, code and type
   * says how many were (`mcp.tool.failure.suppressed_records`). A log backend then receives a
   * bounded stream however hard the server fails. `Infinity` emits a record for every failure.
   * @default 10
   */
  maxFailureLogsPerSecond?: number;
  /**
   * Replace the text `McpServer` puts in the result of a thrown ordinary error (the error's own
   * message, which may hold internal detail) with a short line naming the class, code and
   * correlationId. The message stays in the server's span and log record. `ToolFailureError`
   * messages, written for the caller, are kept. Off by default: it changes the result's content.
   * @default false
   */
  redactThrownErrorText?: boolean;
  /**
   * Read tool results with `outputs` (the open SEP "Negotiated Tool Result Variants"): the text
   * the server classifies an error result by is its `assistant/content` output's, and
   * `tools/call` spans record the outputs' `audience/format` (`mcp.tool.call.outputs`). The
   * failure object stays in the result's `_meta` either way. Off while the SEP is open. Also
   * `OTEL_INSTRUMENTATION_MCP_TOOL_RESULT_OUTPUTS=true` with the zero-code entry. See
   * docs/extension.md, "Beside outputs".
   * @default false
   */
  toolResultOutputs?: boolean;
}
