/**
 * Attribute and metric names, copied (not imported at run time) from the OpenTelemetry
 * semantic conventions for MCP (the page `gen-ai/mcp.md` of semantic-conventions-genai, status
 * Development, as of 2026-11) and the stable registry. Our own names live under
 * `mcp.tool.failure.*` and `mcp.tool.call.*`.
 *
 * This file is the one place each name is spelled; the tables of docs/telemetry.md and
 * docs/stability.md are checked against it.
 *
 * @module @omcp/instrumentation-mcp/semconv
 */

/**
 * The semantic-conventions schema these names follow (the stable names, `rpc.response.status_code`
 * among them, as in 1.44.0; the MCP names as of the GenAI repository's Development status).
 * Carried by this package's tracer, meter and logger as the instrumentation scope's `schemaUrl`.
 */
export const SCHEMA_URL = 'https://opentelemetry.io/schemas/1.44.0';

// --- MCP / GenAI semantic conventions (Development) ---
/** The JSON-RPC method of the request or notification. @experimental */
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
/** The session id, when the transport has one. @experimental */
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
/** The negotiated protocol version. @experimental */
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
/**
 * The URI that `resources/read`, `resources/subscribe` or `resources/unsubscribe` names.
 * @experimental
 */
export const ATTR_MCP_RESOURCE_URI = 'mcp.resource.uri';
/** The tool's name, for `tools/call`. @experimental */
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
/** The prompt's name, for `prompts/get`. @experimental */
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
/** The GenAI operation: `execute_tool` for `tools/call`. @experimental */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
/** Value of `gen_ai.operation.name` for `tools/call`. @experimental */
export const GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL = 'execute_tool';
/** The tool's arguments as JSON, only with `captureToolPayloads`. @experimental */
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
/** A successful tool result as JSON, only with `captureToolPayloads`. @experimental */
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
/** The JSON-RPC request id. @experimental */
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
/** The JSON-RPC error code of the response, when there is one. @experimental */
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
/** Value of `error.type` for a `CallToolResult` with `isError: true`. */
export const ERROR_TYPE_VALUE_TOOL_ERROR = 'tool_error';

// --- Stable ---
/**
 * What went wrong: `tool_error` for a result with `isError: true`, else the JSON-RPC code or what
 * the side saw (a client's `timeout`, a thrown error's name).
 */
export const ATTR_ERROR_TYPE = 'error.type';
/** The transport: `pipe` (stdio), `tcp` (HTTP) or `inproc` (in-memory). */
export const ATTR_NETWORK_TRANSPORT = 'network.transport';
/** `http` for the HTTP transports. */
export const ATTR_NETWORK_PROTOCOL_NAME = 'network.protocol.name';
/** The host of an HTTP server, on the client side. */
export const ATTR_SERVER_ADDRESS = 'server.address';
/** The port of an HTTP server, on the client side. */
export const ATTR_SERVER_PORT = 'server.port';

// --- This package: tool failures (mcp.tool.failure.*) ---
/** Failure class: capability, reliability or governance. */
export const ATTR_MCP_TOOL_FAILURE_CLASS = 'mcp.tool.failure.class';
/** Failure code (on metrics: `_OTHER` outside the baseline and allow-list). */
export const ATTR_MCP_TOOL_FAILURE_CODE = 'mcp.tool.failure.code';
/** Whether the server marked the failure retryable. */
export const ATTR_MCP_TOOL_FAILURE_RETRYABLE = 'mcp.tool.failure.retryable';
/** `retryNotBefore`, epoch milliseconds. */
export const ATTR_MCP_TOOL_FAILURE_RETRY_NOT_BEFORE = 'mcp.tool.failure.retry_not_before';
/** The failure's `correlationId`. Spans only, never on metrics. */
export const ATTR_MCP_TOOL_FAILURE_CORRELATION_ID = 'mcp.tool.failure.correlation_id';
/** The failure's `agentGuidance`, length-capped. */
export const ATTR_MCP_TOOL_FAILURE_AGENT_GUIDANCE = 'mcp.tool.failure.agent_guidance';
/** Rule ids of a malformed failure object, comma-separated. */
export const ATTR_MCP_TOOL_FAILURE_PROBLEMS = 'mcp.tool.failure.problems';
/**
 * Who produced the failure object: `server` (the handler), `instrumentation` (added by this
 * package), or `upstream` (relayed by the proxy from its upstream server).
 */
export const ATTR_MCP_TOOL_FAILURE_SOURCE = 'mcp.tool.failure.source';
/**
 * On a failure log record: how many records of the same kind (server: tool, failure code and
 * exception type; retry policy: tool and exception type) the log budget
 * (`maxFailureLogsPerSecond`) left out since the previous one. Logs only.
 */
export const ATTR_MCP_TOOL_FAILURE_SUPPRESSED_RECORDS = 'mcp.tool.failure.suppressed_records';
/**
 * On a client span: whether the server declared the extension (the failure object's `_meta` key)
 * in `capabilities.extensions`, as the client holds its capabilities (from `server/discover` or
 * `initialize`). Absent while the client holds none.
 */
export const ATTR_MCP_TOOL_FAILURE_PEER_DECLARED = 'mcp.tool.failure.peer_declared';

// --- This package: calls and retries (mcp.tool.call.*) ---
/**
 * The attempt number (1, 2, ...) of one `tools/call` client span; on a server span, the attempt
 * a retrying caller marked in the request (`_meta["dev.omcp/attempt"]`, attempts >= 2 only).
 */
export const ATTR_MCP_TOOL_CALL_ATTEMPT = 'mcp.tool.call.attempt';
/** The total number of attempts of a logical call. */
export const ATTR_MCP_TOOL_CALL_ATTEMPTS = 'mcp.tool.call.attempts';
/**
 * On a client span: the `name` of the server's implementation, from the result's
 * `_meta["io.modelcontextprotocol/serverInfo"]` (2026-07-28), else from what the client holds
 * (`initialize`'s `serverInfo`). The semantic conventions name no attribute for it.
 */
export const ATTR_MCP_TOOL_CALL_SERVER_NAME = 'mcp.tool.call.server.name';
/** On a client span: the `version` of the server's implementation, from the same place. */
export const ATTR_MCP_TOOL_CALL_SERVER_VERSION = 'mcp.tool.call.server.version';
/** The final outcome of a logical call: see `TOOL_CALL_OUTCOMES`. */
export const ATTR_MCP_TOOL_CALL_OUTCOME = 'mcp.tool.call.outcome';
/**
 * The `audience/format` of each output of a `tools/call` result with `outputs` (the open
 * result-variants SEP), in order, on the CLIENT and SERVER spans (with `toolResultOutputs`).
 */
export const ATTR_MCP_TOOL_CALL_OUTPUTS = 'mcp.tool.call.outputs';

/** Delay before the next attempt, in milliseconds (on `mcp.tool.call.retry` events). */
export const ATTR_MCP_TOOL_CALL_RETRY_DELAY_MS = 'mcp.tool.call.retry.delay_ms';
/** Why a retry was scheduled (on `mcp.tool.call.retry` events): see `RetryReason`. */
export const ATTR_MCP_TOOL_CALL_RETRY_REASON = 'mcp.tool.call.retry.reason';
/** What set the delay of a retry: `backoff` or `retry_not_before`. */
export const ATTR_MCP_TOOL_CALL_RETRY_DELAY_SOURCE = 'mcp.tool.call.retry.delay_source';
/** The client's final dispatch action on a failed call: `surface`, `out_of_band` or `stop`. */
export const ATTR_MCP_TOOL_CALL_ACTION = 'mcp.tool.call.action';
/** Why a failed call was not retried further: see `StopReason`. */
export const ATTR_MCP_TOOL_CALL_STOP_REASON = 'mcp.tool.call.stop_reason';
/**
 * The name of the retry policy's INTERNAL span over every attempt of a logical call, before the
 * tool's name (`mcp.tool.call {tool}`).
 */
export const SPAN_NAME_MCP_TOOL_CALL = 'mcp.tool.call';
/** Span event recorded for every retry the policy schedules. */
export const EVENT_MCP_TOOL_CALL_RETRY = 'mcp.tool.call.retry';
/** State of the tool's circuit (`closed`, `open`, `half_open`); the new state on transitions. */
export const ATTR_MCP_TOOL_CALL_CIRCUIT_STATE = 'mcp.tool.call.circuit.state';
/** The state a circuit left (on `mcp.tool.call.circuit.transition` events). */
export const ATTR_MCP_TOOL_CALL_CIRCUIT_PREVIOUS_STATE = 'mcp.tool.call.circuit.previous_state';
/** Span event recorded when a call moves its tool's circuit to another state. */
export const EVENT_MCP_TOOL_CALL_CIRCUIT_TRANSITION = 'mcp.tool.call.circuit.transition';

/** Values of `mcp.tool.call.outcome`. */
export const TOOL_CALL_OUTCOMES = Object.freeze([
  'success',
  'failure',
  'retries_exhausted',
  'budget_exhausted',
  'aborted',
  'error',
] as const);

// --- Metrics ---
/** Duration of MCP requests as seen by the sender, in seconds. @experimental */
export const METRIC_MCP_CLIENT_OPERATION_DURATION = 'mcp.client.operation.duration';
/** Duration of MCP requests as seen by the receiver, in seconds. @experimental */
export const METRIC_MCP_SERVER_OPERATION_DURATION = 'mcp.server.operation.duration';
/** Tool calls that came back as failures, by tool, class and code. */
export const METRIC_MCP_CLIENT_TOOL_FAILURES = 'mcp.client.tool.failures';
/** Tool calls that this server answered with a failure, by tool, class and code. */
export const METRIC_MCP_SERVER_TOOL_FAILURES = 'mcp.server.tool.failures';
/** Retries of logical tool calls, recorded when the logical call ends. */
export const METRIC_MCP_TOOL_CALL_RETRIES = 'mcp.tool.call.retries';
/** Per tool and state: 1 for the circuit's current state, 0 for the others (as `hw.status`). */
export const METRIC_MCP_TOOL_CALL_CIRCUIT_STATUS = 'mcp.tool.call.circuit.status';
/** Transitions of circuits, by tool and the state entered. */
export const METRIC_MCP_TOOL_CALL_CIRCUIT_TRANSITIONS = 'mcp.tool.call.circuit.transitions';
/** Requests the proxy's HTTP endpoint refused, by `error.type` and `http.response.status_code`. */
export const METRIC_MCP_PROXY_REFUSED_REQUESTS = 'mcp.proxy.refused_requests';
/** Streamable HTTP sessions open on the proxy. */
export const METRIC_MCP_PROXY_ACTIVE_SESSIONS = 'mcp.proxy.active_sessions';
/** Sessions the proxy closed for being idle. */
export const METRIC_MCP_PROXY_EXPIRED_SESSIONS = 'mcp.proxy.expired_sessions';
/** The semantic conventions' advisory buckets for the operation durations, in seconds. */
export const DURATION_BUCKETS_SECONDS = Object.freeze([
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
]);
/** Stands for a failure code outside the baseline vocabulary and the allow-list, on metrics. */
export const METRIC_CODE_OTHER = '_OTHER';

// --- Exceptions (stable) and the SDK's metric overflow attribute ---
/** The type of a thrown error, on a failure log record. */
export const LOG_ATTR_EXCEPTION_TYPE = 'exception.type';
/** The message of a thrown error, on a failure log record. */
export const LOG_ATTR_EXCEPTION_MESSAGE = 'exception.message';
/** The stack of a thrown error, on a failure log record (within `maxStackTracesPerSecond`). */
export const LOG_ATTR_EXCEPTION_STACKTRACE = 'exception.stacktrace';
/** Not in the registry: the cause chain of a thrown error, formatted. */
export const LOG_ATTR_EXCEPTION_CAUSE = 'exception.cause';
/** The HTTP status of a refusal, on `mcp.proxy.refused_requests` (stable HTTP conventions). */
export const METRIC_ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
/** The resource attribute naming the service a span or record came from (read, not emitted). */
export const RESOURCE_ATTR_SERVICE_NAME = 'service.name';
/** The SDK's attribute for a metric stream beyond its cardinality limit. */
export const METRIC_ATTR_OTEL_METRIC_OVERFLOW = 'otel.metric.overflow';
