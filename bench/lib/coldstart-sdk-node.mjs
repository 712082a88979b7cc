// The cold-start section's sdk-node row: @opentelemetry/sdk-node alone, loaded and started
// with no instrumentation and no loader hook, what any OpenTelemetry setup pays at least.
import { NodeSDK } from '@opentelemetry/sdk-node';

new NodeSDK().start();
