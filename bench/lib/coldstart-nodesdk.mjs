// The cold-start section's NodeSDK row: what the README's "Register with your OpenTelemetry SDK"
// has a user write (node --import ./telemetry.mjs), with the instrumentation from this build.
import { register } from 'node:module';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { McpInstrumentation } from '../../dist/esm/index.js';

register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
new NodeSDK({ instrumentations: [new McpInstrumentation()] }).start();
