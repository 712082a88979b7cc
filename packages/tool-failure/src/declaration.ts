import { copyWith, isRecord, ownString, ownValue } from './wire/safe.js';

/**
 * How a server says it speaks the extension: an entry in `capabilities.extensions` (a map from
 * extension id to a settings object, a JSON object) of its `server/discover` result, or of its
 * `initialize` result under a revision that defines the field. The extension id is the failure
 * object's `_meta` key. Pure.
 */

/** The first revision whose capabilities have `extensions`: 2026-07-28. */
export const EXTENSIONS_SINCE = '2026-07-28';

/**
 * Whether `version` (an MCP revision, `YYYY-MM-DD`) defines `capabilities.extensions`. Revisions
 * are dates, so they compare as strings; anything else (a draft name, nothing) does not.
 */
export function definesExtensions(version: unknown): boolean {
  return typeof version === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(version)
    ? version >= EXTENSIONS_SINCE
    : false;
}

/** Whether `capabilities` declares the extension `id`: an object entry under `extensions`. */
export function declaresExtension(capabilities: unknown, id: string): boolean {
  return isRecord(ownValue(ownValue(capabilities, 'extensions'), id));
}

/**
 * Whether a result of `method` (the response to `initialize` or `server/discover`) is one that
 * carries the server's capabilities for a revision that defines `extensions`: every
 * `server/discover` result (the method exists only there), an `initialize` result whose
 * `protocolVersion` is such a revision.
 */
export function carriesExtensions(method: string, result: unknown): boolean {
  if (method === 'server/discover') return true;
  return method === 'initialize' && definesExtensions(ownString(result, 'protocolVersion'));
}

/**
 * `result` with the extension `id` declared in `capabilities.extensions`, on copies (the
 * result, its capabilities, its extensions; nothing of the caller's is changed). The same
 * object when there is nothing to do: the id is declared already (with whatever settings the
 * server gave it), or the result has no capabilities object to declare it in.
 */
export function withDeclaration(result: unknown, id: string): unknown {
  if (!isRecord(result)) return result;
  const capabilities = ownValue(result, 'capabilities');
  if (!isRecord(capabilities) || declaresExtension(capabilities, id)) return result;
  const extensions = ownValue(capabilities, 'extensions');
  const declared = copyWith(isRecord(extensions) ? extensions : {}, id, {});
  return copyWith(result, 'capabilities', copyWith(capabilities, 'extensions', declared));
}
