/**
 * `@omcp/instrumentation-mcp/proxy`: deprecated, kept for one release. The relaying proxy's home
 * is the `@omcp/mcp-failure-proxy` package; this subpath re-exports it unchanged, so the values
 * are the same objects. Import from `@omcp/mcp-failure-proxy` instead.
 *
 * @deprecated Import from `@omcp/mcp-failure-proxy`.
 */
// eslint-disable-next-line no-restricted-syntax -- re-exported whole, so it cannot differ from its home
export * from '@omcp/mcp-failure-proxy';
