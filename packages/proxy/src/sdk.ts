import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import type {
  Server as ModernServer,
  createMcpHandler,
  isLegacyRequest,
} from '@modelcontextprotocol/server';

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

/**
 * The MCP SDK 2.x server pieces that serve the 2026-07-28 revision downstream (`revision`
 * of `serveStreamableHttp`, `--revision` of the CLI): the SDK's own classification, envelope
 * checks, `server/discover` and per-request transport, so the proxy speaks that revision as
 * the SDK does.
 */
export interface ModernSdk {
  Server: typeof ModernServer;
  createMcpHandler: typeof createMcpHandler;
  isLegacyRequest: typeof isLegacyRequest;
}

/** The SDK 2.x server is missing or too old to serve the 2026-07-28 revision; one line. */
export class ModernSdkMissing extends Error {}

let loadingModern: Promise<ModernSdk> | undefined;

/**
 * Loads `@modelcontextprotocol/server` 2.x once; rejects with `ModernSdkMissing`, saying what
 * to install, when it is absent or lacks what the 2026-07-28 revision needs.
 */
export function loadModernSdk(): Promise<ModernSdk> {
  loadingModern ??= import('@modelcontextprotocol/server').then(
    (server) => {
      const { Server, createMcpHandler, isLegacyRequest } = server;
      if (typeof createMcpHandler !== 'function' || typeof isLegacyRequest !== 'function')
        throw new ModernSdkMissing(MODERN_SDK_NEEDED);
      return { Server, createMcpHandler, isLegacyRequest };
    },
    () => {
      throw new ModernSdkMissing(MODERN_SDK_NEEDED);
    },
  );
  return loadingModern;
}

const MODERN_SDK_NEEDED =
  'serving the 2026-07-28 revision needs @modelcontextprotocol/server 2.x (with createMcpHandler): npm install @modelcontextprotocol/server@2';
