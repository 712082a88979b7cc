import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP SDK 1.x pieces the proxy uses, loaded on first use so that importing this package
 * never loads an SDK the application did not install (it is an optional peer dependency).
 */
export interface Sdk {
  Client: typeof Client;
  Server: typeof Server;
  McpError: typeof McpError;
}

let loading: Promise<Sdk> | undefined;

/** Loads `@modelcontextprotocol/sdk` 1.x once. */
export function loadSdk(): Promise<Sdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([client, server, types]) => ({
    Client: client.Client,
    Server: server.Server,
    McpError: types.McpError,
  }));
  return loading;
}
