// Kept equal to package.json "name" and "version" by test/scripts/repo-map.test.ts.
/** This package's name, the instrumentation scope name. */
export const PACKAGE_NAME = '@omcp/instrumentation-mcp';
/** This package's version, the instrumentation scope version. */
export const PACKAGE_VERSION = '0.1.0';
