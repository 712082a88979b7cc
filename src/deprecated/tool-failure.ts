/**
 * `@omcp/instrumentation-mcp/tool-failure`: deprecated, kept for one release. The data model's
 * home is the `@omcp/tool-failure` package; this subpath re-exports it unchanged, so the values
 * are the same objects. Import from `@omcp/tool-failure` instead.
 *
 * @deprecated Import from `@omcp/tool-failure`.
 */
// eslint-disable-next-line no-restricted-syntax -- re-exported whole, so it cannot differ from its home
export * from '@omcp/tool-failure';
