// The cold-start section's NodeSDK row: what the README's "Register with your OpenTelemetry SDK"
// has a user write (node --import ./telemetry.mjs), with the instrumentation from this build and
// the README's flush on the way out (a stdio server ends when its stdin closes).
import { register } from 'node:module';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { McpInstrumentation } from '../../dist/esm/index.js';

register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
const sdk = new NodeSDK({ instrumentations: [new McpInstrumentation()] });
sdk.start();
let stopping;
process.on('beforeExit', () => void (stopping ??= sdk.shutdown().catch(() => undefined)));
