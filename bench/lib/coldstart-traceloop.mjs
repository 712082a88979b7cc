// The cold-start section's peer row: Traceloop's MCP instrumentation as its own documentation has
// it set up, NodeSDK with the instrumentation and OpenTelemetry's loader hook, the hook from the
// @opentelemetry/instrumentation the peer itself is installed with (its Hook objects are only
// reached through that copy). The same sdk-node as the other rows, so only the instrumentation
// and its hook differ.
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { NodeSDK } from '@opentelemetry/sdk-node';

const peers = createRequire(new URL('../peers/package.json', import.meta.url));
const peer = peers.resolve('@traceloop/instrumentation-mcp');
register('@opentelemetry/instrumentation/hook.mjs', pathToFileURL(peer));
const { McpInstrumentation } = peers('@traceloop/instrumentation-mcp');
new NodeSDK({ instrumentations: [new McpInstrumentation()] }).start();
