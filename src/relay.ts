/**
 * What an intermediary built on the instrumentation (the `@omcp/mcp-failure-proxy` gateway) needs
 * from it: the marks that keep the server tap from completing relayed results or declaring
 * capabilities of its own, the per-client tool-list cache that a retry decision reads annotations
 * from, and the instrumentation scope's meter.
 *
 * @module @omcp/instrumentation-mcp/relay
 */
export { markRelayed, markRelaying } from './shared/relayed.js';
export { scopeMeter } from './shared/scope.js';
export {
  hasListedAnyTool,
  hasListedTool,
  rememberToolList,
  retryHintsOf,
  toolsOfPage,
  walkToolListPages,
} from './shared/tool-annotations.js';
export type { ListToolsPage } from './shared/tool-annotations.js';
