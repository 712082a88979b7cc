// Kept equal to packages/proxy/package.json "name" and "version" by test/scripts/repo-map.test.ts.
/** The proxy package's name. */
export const PROXY_PACKAGE_NAME = '@omcp/mcp-failure-proxy';
/** The proxy package's version, which the proxy gives as its own in MCP (serverInfo, clientInfo). */
export const PROXY_PACKAGE_VERSION = '0.1.0';
