import { describe, expect, it } from 'vitest';
import {
  carriesExtensions,
  declaresExtension,
  definesExtensions,
  withDeclaration,
} from '../src/declaration.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../src/index.js';

describe('the declaration of the extension in capabilities.extensions', () => {
  it('is defined from 2026-07-28 on, for revisions that are dates', () => {
    expect(definesExtensions('2026-07-28')).toBe(true);
    expect(definesExtensions('2027-01-15')).toBe(true);
    for (const older of ['2025-11-25', '2025-06-18', '2024-11-05'])
      expect(definesExtensions(older)).toBe(false);
    for (const odd of ['DRAFT-2026-v1', '', undefined, 20260728, '2026-7-28'])
      expect(definesExtensions(odd)).toBe(false);
  });

  it('is carried by every server/discover result and by initialize results of such a revision', () => {
    expect(carriesExtensions('server/discover', {})).toBe(true);
    expect(carriesExtensions('initialize', { protocolVersion: '2026-07-28' })).toBe(true);
    expect(carriesExtensions('initialize', { protocolVersion: '2025-11-25' })).toBe(false);
    expect(carriesExtensions('initialize', {})).toBe(false);
    expect(carriesExtensions('tools/list', { protocolVersion: '2026-07-28' })).toBe(false);
  });

  it('reads a declaration as an object entry under the id', () => {
    expect(declaresExtension({ extensions: { [KEY]: {} } }, KEY)).toBe(true);
    expect(declaresExtension({ extensions: { [KEY]: { v: 1 } } }, KEY)).toBe(true);
    for (const value of [true, 'yes', null, [], 1])
      expect(declaresExtension({ extensions: { [KEY]: value } }, KEY)).toBe(false);
    expect(declaresExtension({ extensions: { 'other/ext': {} } }, KEY)).toBe(false);
    expect(declaresExtension({}, KEY)).toBe(false);
    expect(declaresExtension(undefined, KEY)).toBe(false);
    // An accessor is not run: a hostile capabilities object cannot throw into the reader.
    const hostile = Object.defineProperty({}, 'extensions', {
      get() {
        throw new Error('no');
      },
    });
    expect(declaresExtension(hostile, KEY)).toBe(false);
  });

  it('adds the declaration to copies, keeping every other key and the caller objects intact', () => {
    const extensions = { 'io.example/other': { a: 1 } };
    const capabilities = { tools: { listChanged: true }, extensions };
    const result = { supportedVersions: ['2026-07-28'], capabilities, _meta: { x: 1 } };
    const frozen = structuredClone(result);
    const declared = withDeclaration(result, KEY);
    expect(declared).toEqual({
      ...frozen,
      capabilities: { ...frozen.capabilities, extensions: { ...extensions, [KEY]: {} } },
    });
    expect(result).toEqual(frozen);
    expect(declared).not.toBe(result);
  });

  it('leaves a result alone that declares already, or has no capabilities object', () => {
    const own = { capabilities: { extensions: { [KEY]: { since: 'v1' } } } };
    expect(withDeclaration(own, KEY)).toBe(own);
    const none = { supportedVersions: [] };
    expect(withDeclaration(none, KEY)).toBe(none);
    const odd = { capabilities: 'all' };
    expect(withDeclaration(odd, KEY)).toBe(odd);
    expect(withDeclaration(undefined, KEY)).toBeUndefined();
    // Extensions that are not an object are replaced by a map with the declaration.
    expect(withDeclaration({ capabilities: { extensions: 'x' } }, KEY)).toEqual({
      capabilities: { extensions: { [KEY]: {} } },
    });
  });

  it('declares under the key it is given (a configured metaKey)', () => {
    expect(withDeclaration({ capabilities: {} }, 'com.example/toolFailure')).toEqual({
      capabilities: { extensions: { 'com.example/toolFailure': {} } },
    });
  });
});
