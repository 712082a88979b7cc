/**
 * The JSON-RPC and MCP wire helpers every `@omcp` package speaks with (the instrumentation, the
 * proxy, the conformance kit), with no dependency: the JSON-RPC error codes, reads of untrusted
 * objects that run no accessor, the 2026-07-28 request envelope, the first line of an error, and an
 * abort link that lets go of its parents.
 *
 * @module @omcp/tool-failure/wire
 */
export { AbortLink } from './abort-link.js';
export {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  MODERN_REVISION,
  PROTOCOL_VERSION_META_KEY,
  envelopeHeaders,
  withEnvelope,
} from './envelope.js';
export { firstLine, firstLineOf } from './first-line.js';
export {
  CALLER_ERRORS,
  CONNECTION_CLOSED,
  HEADER_MISMATCH,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  PARSE_ERROR,
  REQUEST_TIMEOUT,
  RESOURCE_NOT_FOUND,
  SERVER_ERROR,
  UNSUPPORTED_PROTOCOL_VERSION,
  URL_ELICITATION_REQUIRED,
} from './jsonrpc.js';
export {
  assignOwn,
  copyWith,
  field,
  isRecord,
  ownData,
  ownString,
  ownValue,
  safeGet,
} from './safe.js';
