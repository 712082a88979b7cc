/**
 * JSON-RPC error codes this package reads or writes: the JSON-RPC 2.0 codes, the MCP SDKs' own
 * (connection closed, request timeout, resource not found, URL elicitation required) and the
 * codes the MCP specification reserves (-32020 to -32099). One definition; every module imports.
 */

/** JSON-RPC 2.0's parse error: the message is not valid JSON. */
export const PARSE_ERROR = -32700;
/** JSON-RPC 2.0's invalid request: the message is not a valid request object. */
export const INVALID_REQUEST = -32600;
/** JSON-RPC 2.0's method not found: the method does not exist or is not available. */
export const METHOD_NOT_FOUND = -32601;
/** JSON-RPC 2.0's invalid params: the method's parameters are invalid. */
export const INVALID_PARAMS = -32602;
/** JSON-RPC 2.0's internal error. */
export const INTERNAL_ERROR = -32603;
/** JSON-RPC's generic server error (the Streamable HTTP transport's "Bad Request" answers). */
export const SERVER_ERROR = -32000;
/** The SDKs' `ConnectionClosed`, in the server-error range. */
export const CONNECTION_CLOSED = SERVER_ERROR;
/** The SDKs' `RequestTimeout`; the Streamable HTTP transport's "session not found" too. */
export const REQUEST_TIMEOUT = -32001;
/** The SDKs' `ResourceNotFound`: a `resources/*` request names a URI the server does not have. */
export const RESOURCE_NOT_FOUND = -32002;
/** The SDKs' `UrlElicitationRequired`: the user must complete a URL elicitation first. */
export const URL_ELICITATION_REQUIRED = -32042;
/** 2026-07-28: an HTTP header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) disagrees with the body. */
export const HEADER_MISMATCH = -32020;
/** 2026-07-28: the request needs a client capability its `clientCapabilities` does not declare. */
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
/** 2026-07-28: the server does not speak the protocol version the request names. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/**
 * Codes the semantic conventions do not count as server errors on the server span: the caller's
 * mistake, recorded as `rpc.response.status_code` without `error.type` (genai #404). The three
 * codes 2026-07-28 reserves are the caller's too (a header that contradicts the body, a missing
 * client capability, a version the server does not speak): the server answered correctly.
 */
export const CALLER_ERRORS: ReadonlySet<number> = new Set([
  PARSE_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  INVALID_PARAMS,
  RESOURCE_NOT_FOUND,
  HEADER_MISMATCH,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION,
]);
