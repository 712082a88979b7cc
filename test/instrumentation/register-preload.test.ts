import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importMcpSdk, type ModuleAccess } from '../../src/register/preload.js';

const require = createRequire(import.meta.url);

/** Resolves specifiers as the repository's own tree does (ES module targets), or nowhere. */
function access(known: Record<string, string>): ModuleAccess & { loaded: string[] } {
  const loaded: string[] = [];
  return {
    loaded,
    resolve: (specifier) => {
      const file = known[specifier];
      if (file === undefined) throw new Error(`Cannot find module '${specifier}'`);
      return pathToFileURL(file).href;
    },
    load: (url) => {
      loaded.push(url);
      return import(url) as Promise<object>;
    },
  };
}

/** The ES module file of a 1.x subpath (require resolves the CommonJS one beside it). */
const esm = (subpath: string): string =>
  require.resolve(`@modelcontextprotocol/sdk/${subpath}`).replace('/dist/cjs/', '/dist/esm/');
const V1 = {
  '@modelcontextprotocol/sdk/shared/protocol.js': esm('shared/protocol.js'),
  '@modelcontextprotocol/sdk/server/mcp.js': esm('server/mcp.js'),
};

describe('importMcpSdk (the register entry on Bun and Deno)', () => {
  it('imports the 1.x modules the patches take, and each 2.x package that resolves', async () => {
    const v2Server = require.resolve('@modelcontextprotocol/server').replace(/\.cjs$/, '.mjs');
    const sdk = await importMcpSdk(access({ ...V1, '@modelcontextprotocol/server': v2Server }));
    expect(sdk.unsupported).toEqual([]);
    expect(typeof (sdk.loaded.v1Protocol as { Protocol?: unknown }).Protocol).toBe('function');
    expect(typeof (sdk.loaded.v1Mcp as { McpServer?: unknown }).McpServer).toBe('function');
    expect(sdk.loaded.v2).toHaveLength(1);
  });

  it('nothing resolvable: nothing imported', async () => {
    const modules = access({});
    expect(await importMcpSdk(modules)).toEqual({ loaded: {}, unsupported: [], failed: [] });
    expect(modules.loaded).toEqual([]);
  });

  it('a resolvable package outside its range is named, not imported', async () => {
    // The 1.x specifier resolving into a 2.x package: its version is outside 1.x's range.
    const v2Server = require.resolve('@modelcontextprotocol/server');
    const modules = access({ '@modelcontextprotocol/sdk/shared/protocol.js': v2Server });
    const sdk = await importMcpSdk(modules);
    expect(sdk.loaded).toEqual({});
    expect(modules.loaded).toEqual([]);
    expect(sdk.unsupported).toEqual(['@modelcontextprotocol/sdk (version unknown)']);
  });

  it('a module whose import fails is left out and named; the others are imported', async () => {
    const modules = access(V1);
    const load = modules.load;
    modules.load = (url) =>
      url.endsWith('/server/mcp.js') ? Promise.reject(new Error('no zod here\nstack')) : load(url);
    const sdk = await importMcpSdk(modules);
    expect(sdk.loaded.v1Protocol).toBeDefined();
    expect(sdk.loaded.v1Mcp).toBeUndefined();
    expect(sdk.failed).toEqual(['@modelcontextprotocol/sdk/server/mcp.js (no zod here)']);
  });
});
