// `@omcp/instrumentation-mcp/internal`: what the other packages of the workspace share with the
// instrumentation (`@omcp/mcp-failure-proxy` relays through its retry engine and records with its
// names; `@omcp/mcp-failures` reads traces by those names). Not a stable interface: names here may
// change in any release. Applications use the root entry and `./retry`.
export { isCircuitOpenAnswer } from './retry/circuit-answer.js';
export {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_TOOL_CALL_ATTEMPT,
  ATTR_MCP_TOOL_CALL_ATTEMPTS,
  ATTR_MCP_TOOL_CALL_OUTCOME,
  ATTR_MCP_TOOL_FAILURE_AGENT_GUIDANCE,
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_CODE,
  ATTR_MCP_TOOL_FAILURE_CORRELATION_ID,
  ATTR_MCP_TOOL_FAILURE_RETRYABLE,
  ATTR_MCP_TOOL_FAILURE_RETRY_NOT_BEFORE,
  ATTR_MCP_TOOL_FAILURE_SOURCE,
  LOG_ATTR_EXCEPTION_MESSAGE,
  LOG_ATTR_EXCEPTION_STACKTRACE,
  METRIC_ATTR_HTTP_RESPONSE_STATUS_CODE,
  METRIC_CODE_OTHER,
  METRIC_MCP_PROXY_ACTIVE_SESSIONS,
  METRIC_MCP_PROXY_EXPIRED_SESSIONS,
  METRIC_MCP_PROXY_REFUSED_REQUESTS,
  RESOURCE_ATTR_SERVICE_NAME,
  SCHEMA_URL,
  SPAN_NAME_MCP_TOOL_CALL,
} from './semconv.js';
export { AbortLink } from './shared/abort-link.js';
export { splitAtDashes } from './shared/argv.js';
export { MODERN_REVISION, envelopeHeaders, withEnvelope } from './shared/envelope.js';
export { firstLine, firstLineOf } from './shared/first-line.js';
export {
  CONNECTION_CLOSED,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  REQUEST_TIMEOUT,
  SERVER_ERROR,
} from './shared/jsonrpc.js';
export { markRelayed, markRelaying } from './shared/relayed.js';
export { isRecord } from './shared/safe.js';
export { scopeMeter } from './shared/scope.js';
export { handleStdoutErrors } from './shared/stdout-errors.js';
export {
  hasListedAnyTool,
  hasListedTool,
  rememberToolList,
  retryHintsOf,
  toolsOfPage,
  walkToolListPages,
} from './shared/tool-annotations.js';
