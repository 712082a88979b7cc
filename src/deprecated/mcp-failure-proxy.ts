// `mcp-failure-proxy` of @omcp/instrumentation-mcp: deprecated, kept for one release. It runs
// the executable of its home package, @omcp/mcp-failure-proxy, which this package depends on.
import { runHomeBin } from './home-bin.js';

runHomeBin('@omcp/mcp-failure-proxy', 'mcp-failure-proxy', 1);
