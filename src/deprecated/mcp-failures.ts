// `mcp-failures` of @omcp/instrumentation-mcp: deprecated, kept for one release. It runs the
// executable of its home package, @omcp/mcp-failures, which this package depends on.
import { runHomeBin } from './home-bin.js';

runHomeBin('@omcp/mcp-failures', 'mcp-failures', 2);
