// What an application has installed before it adds this package, by OpenTelemetry JS stack, and
// the MCP SDK it serves with: the one list of these pins for the packaging tests' installs
// (test/packaging/cells.ts) and the cold-start bench's user projects (bench/lib/coldstart-lines.mjs).

export const STACKS = {
  /** The design card: OpenTelemetry JS 2.x without sdk-node. */
  card: [
    '@opentelemetry/api@1.9.1',
    '@opentelemetry/sdk-trace-node@2.12.1',
    '@opentelemetry/exporter-trace-otlp-http@0.223.0',
  ],
  'sdk-node 2.x': ['@opentelemetry/api@1.9.1', '@opentelemetry/sdk-node@0.223.0'],
  'sdk-node 3.x': ['@opentelemetry/api@1.10.0', '@opentelemetry/sdk-node@0.301.0'],
  /** A user's own pin that mixes the lines: the 2.x api under the 3.x sdk-node. */
  mixed: ['@opentelemetry/api@1.9.1', '@opentelemetry/sdk-node@0.301.0'],
};

export const MCP_SDK = '@modelcontextprotocol/sdk@1.32.2';
