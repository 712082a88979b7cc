// What the parts of a failing tool call cost on their own, each in a tight loop on this process
// (ns per operation, median of several rounds; garbage collection included). The end-to-end
// overhead section measures the whole; this one says where a failing call's extra time goes.
// Prints one JSON line.
import { context, metrics, trace } from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';
import { setupOtel } from './otel.mjs';
import { classifyError, readToolFailure } from '@omcp/tool-failure';
import { FailureTally } from '../../dist/esm/shared/metrics.js';

setupOtel();
const failure = {
  class: 'reliability',
  code: 'internal_error',
  retryable: false,
  correlationId: '0af7651916cd43dd8448eb211c80319c',
};
const result = {
  content: [{ type: 'text', text: 'upstream refused the request' }],
  isError: true,
  _meta: { 'io.modelcontextprotocol/toolFailure': failure },
};
const operation = Object.freeze({
  'mcp.method.name': 'tools/call',
  'gen_ai.tool.name': 'fail',
  'gen_ai.operation.name': 'execute_tool',
  'network.transport': 'inproc',
  'mcp.protocol.version': '2025-11-25',
});
const failed = Object.freeze({
  ...operation,
  'error.type': 'tool_error',
  'mcp.tool.failure.class': 'reliability',
});
const meter = metrics.getMeter('parts');
const histogram = meter.createHistogram('parts.duration', { unit: 's' });
const counter = meter.createCounter('parts.failures');
const tally = new FailureTally();
const tracer = trace.getTracer('parts');
const logger = logs.getLogger('parts');
const thrown = new Error('upstream refused the request');
const stack = thrown.stack;

/** An error made 10 frames deep, as a tool callback's error is under the SDK's handler. */
function deep(n, make) {
  return n === 0 ? make() : deep(n - 1, make);
}

const parts = {
  'new Error, 10 frames deep (every variant pays it)': () => deep(8, () => new Error('x')),
  'the same, and its stack formatted': () => deep(8, () => new Error('x')).stack,
  'classifyError (an Error)': () => classifyError(thrown),
  'readToolFailure (a failure result)': () => readToolFailure(result),
  'histogram.record, 5 operation attributes': () => histogram.record(0.001, operation),
  'histogram.record, 7 failed-call attributes': () => histogram.record(0.001, failed),
  'counter.add, 4 attributes (synchronous counter)': () =>
    counter.add(1, {
      'error.type': 'tool_error',
      'gen_ai.tool.name': 'fail',
      'mcp.tool.failure.class': 'reliability',
      'mcp.tool.failure.code': 'internal_error',
    }),
  'FailureTally.add (the failure counters)': () =>
    tally.add('fail', 'reliability', 'internal_error'),
  'span, no attributes': () => tracer.startSpan('s').end(),
  'span, failure attributes and error status': () => {
    const s = tracer.startSpan('s');
    s.setAttribute('error.type', 'tool_error');
    s.setAttribute('mcp.tool.failure.class', failure.class);
    s.setAttribute('mcp.tool.failure.code', failure.code);
    s.setAttribute('mcp.tool.failure.correlation_id', failure.correlationId);
    s.setAttribute('mcp.tool.failure.retryable', false);
    s.setStatus({ code: 2, message: thrown.message });
    s.end();
  },
  'failure log record (emit, batch processor)': () =>
    logger.emit({
      severityNumber: 17,
      severityText: 'ERROR',
      body: `tools/call fail failed (reliability/internal_error, correlationId ${failure.correlationId})`,
      attributes: {
        'mcp.tool.failure.class': failure.class,
        'mcp.tool.failure.code': failure.code,
        'mcp.tool.failure.correlation_id': failure.correlationId,
        'mcp.tool.failure.retryable': false,
        'exception.type': thrown.name,
        'exception.message': thrown.message,
        'exception.stacktrace': stack,
        'gen_ai.tool.name': 'fail',
      },
      context: context.active(),
    }),
};

const ROUNDS = 5;
const N = Number(process.env.BENCH_PARTS_OPS ?? '40000');
const samples = Object.fromEntries(Object.keys(parts).map((k) => [k, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, fn] of Object.entries(parts)) {
    for (let i = 0; i < 2000; i++) fn();
    const start = process.cpuUsage();
    for (let i = 0; i < N; i++) fn();
    const used = process.cpuUsage(start);
    samples[name].push(((used.user + used.system) * 1000) / N);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(
  JSON.stringify(
    Object.entries(samples).map(([name, xs]) => ({ name, ns: Math.round(median(xs)) })),
  ),
);
process.exit(0);
