// Kept equal to packages/mcp-failures/package.json "name" and "version" by
// test/scripts/repo-map.test.ts.
/** The conformance kit's package name. */
export const KIT_PACKAGE_NAME = '@omcp/mcp-failures';
/** The kit's version, which its checkers and scripted servers give in MCP (clientInfo, serverInfo). */
export const KIT_PACKAGE_VERSION = '0.1.0';
