// The stdio child of one variant: same OpenTelemetry SDK, same variant, same tools, plus a
// `bench_stats` tool that reports the spans this process exported.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { setupOtel, slim } from './otel.mjs';
import { installVariant } from './variants.mjs';
import { createServer } from './server.mjs';

const otel = setupOtel();
const variant = await installVariant(process.env.BENCH_VARIANT ?? 'baseline');
const { server } = createServer(
  variant,
  {
    async bench_stats() {
      await otel.tracerProvider.forceFlush();
      const spans = otel.spans.ring.map(slim);
      otel.spans.reset();
      return {
        content: [{ type: 'text', text: JSON.stringify({ spans, count: otel.spans.count }) }],
      };
    },
    async bench_cpu() {
      // Export is part of the cost: what the measured calls queued is flushed before reading.
      await otel.tracerProvider.forceFlush();
      await otel.loggerProvider.forceFlush();
      const u = process.cpuUsage();
      return { content: [{ type: 'text', text: String(u.user + u.system) }] };
    },
    async bench_reset() {
      await otel.tracerProvider.forceFlush();
      otel.spans.reset();
      return { content: [{ type: 'text', text: 'reset' }] };
    },
  },
  'pipe',
);
await server.connect(new StdioServerTransport());
