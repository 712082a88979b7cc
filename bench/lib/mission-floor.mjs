// The mission floor: the least a hand-written implementation of this package's job costs, to
// compare this package with at the same output. On top of the floor's spans and propagation it
// emits what this package emits per tool call by default (docs/telemetry.md): the span
// attributes of both sides, on a failure a failure object in the result's `_meta` (class and
// code from a fixed map, `correlationId` = trace ID) that the client reads onto its span, the
// semconv duration histogram of each side, the failure counter of each side, and a failure log
// record under a budget of 10 a second. Written plainly; every step is listed in
// docs/performance.md with why it is there and why it costs no more than it must.
import {
  ROOT_CONTEXT,
  SpanKind,
  createContextKey,
  SpanStatusCode,
  context,
  metrics,
  propagation,
  trace,
} from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';
import { performance } from 'node:perf_hooks';

const KEY = 'io.modelcontextprotocol/toolFailure';
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const LOGS_PER_SECOND = 10;

/** The fixed map: a thrown error's `code` to its class and failure code; anything else below. */
const BY_CODE = {
  ECONNRESET: { class: 'reliability', code: 'retryable_transient_error', retryable: true },
  ETIMEDOUT: { class: 'reliability', code: 'retryable_transient_error', retryable: true },
  EACCES: { class: 'governance', code: 'permission_denied', retryable: false },
};
const OTHER = { class: 'reliability', code: 'internal_error', retryable: false };

/**
 * A failure counter counted in-process (tool, then code: one lookup and an increment) and
 * reported by an asynchronous counter at each collection.
 */
function failureCounter(meter, name) {
  const byTool = new Map();
  meter.createObservableCounter(name, { unit: '{failure}' }).addCallback((result) => {
    for (const [tool, byCode] of byTool)
      for (const entry of byCode.values())
        result.observe(entry.count, {
          'error.type': 'tool_error',
          'gen_ai.tool.name': tool,
          'mcp.tool.failure.class': entry.class,
          'mcp.tool.failure.code': entry.code,
        });
  });
  return (tool, failureClass, code) => {
    let byCode = byTool.get(tool);
    if (byCode === undefined) byTool.set(tool, (byCode = new Map()));
    const entry = byCode.get(code);
    if (entry === undefined) byCode.set(code, { class: failureClass, code, count: 1 });
    else entry.count++;
  };
}

/** Up to LOGS_PER_SECOND records a second per tool and code; returns -1 or how many were left out. */
function logBudget() {
  const byKey = new Map();
  return (key) => {
    const now = Date.now();
    let b = byKey.get(key);
    if (b === undefined) byKey.set(key, (b = { start: now, used: 0, left: 0 }));
    if (now - b.start >= 1000) {
      b.start = now;
      b.used = 0;
    }
    if (b.used >= LOGS_PER_SECOND) {
      b.left++;
      return -1;
    }
    b.used++;
    const left = b.left;
    b.left = 0;
    return left;
  };
}

/**
 * The span attributes both sides put on a tools/call span; over HTTP the protocol name and, on
 * the client, the server's address and port (`peer`).
 */
function operationAttributes(tool, transport, version, id, peer) {
  const a = {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': tool,
    'gen_ai.operation.name': 'execute_tool',
    'network.transport': transport,
    'mcp.protocol.version': version,
    'jsonrpc.request.id': id,
  };
  if (transport === 'tcp') a['network.protocol.name'] = 'http';
  if (peer !== undefined) {
    a['server.address'] = peer.address;
    a['server.port'] = peer.port;
  }
  return a;
}

/**
 * The server's name and version and whether it declared the extension, from what the client
 * holds after connect: the attributes this package puts on every tools/call client span.
 */
function serverAttributes(c) {
  const info = c.getServerVersion?.() ?? {};
  const extensions = c.getServerCapabilities?.()?.extensions;
  const entry = extensions?.['io.modelcontextprotocol/toolFailure'];
  const attributes = {
    'mcp.tool.failure.peer_declared': typeof entry === 'object' && entry !== null,
  };
  if (typeof info.name === 'string') attributes['mcp.tool.call.server.name'] = info.name;
  if (typeof info.version === 'string') attributes['mcp.tool.call.server.version'] = info.version;
  return attributes;
}

/** The histogram's attributes: the span's less the request id, plus the failure's. */
function durationAttributes(tool, transport, version, failureClass, peer) {
  const a = {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': tool,
    'gen_ai.operation.name': 'execute_tool',
    'network.transport': transport,
    'mcp.protocol.version': version,
  };
  if (transport === 'tcp') a['network.protocol.name'] = 'http';
  if (peer !== undefined) {
    a['server.address'] = peer.address;
    a['server.port'] = peer.port;
  }
  if (failureClass !== undefined) {
    a['error.type'] = 'tool_error';
    a['mcp.tool.failure.class'] = failureClass;
  }
  return a;
}

/** The failure object of a classified throw, `correlationId` = the server span's trace ID. */
function failureObject(c, span) {
  return {
    class: c.class,
    code: c.code,
    correlationId: span.spanContext().traceId,
    retryable: c.retryable,
  };
}

/** The context key of the tap's open call, where the tool wrapper notes what it threw. */
const CALL = createContextKey('mission-floor call');

/**
 * `missionFloor()` spans the tool callback; `missionFloor({ at: 'transport' })` makes the same
 * server span from the request's arrival at the transport to its response being sent, as this
 * package does (so that requests the SDK refuses before any handler runs are traced too), and
 * adds the failure object to a copy of the result the SDK made of the throw. The client side is
 * the same in both.
 */
export function missionFloor({ at = 'tool' } = {}) {
  const tracer = trace.getTracer('mission-floor');
  const meter = metrics.getMeter('mission-floor');
  const logger = logs.getLogger('mission-floor');
  const clientDuration = meter.createHistogram('mcp.client.operation.duration', {
    unit: 's',
    advice: { explicitBucketBoundaries: BUCKETS },
  });
  const serverDuration = meter.createHistogram('mcp.server.operation.duration', {
    unit: 's',
    advice: { explicitBucketBoundaries: BUCKETS },
  });
  const clientFailures = failureCounter(meter, 'mcp.client.tool.failures');
  const serverFailures = failureCounter(meter, 'mcp.server.tool.failures');
  const takeLog = logBudget();
  // The server's negotiated version, from its `initialize`: one server per process in the bench.
  let serverVersion;

  /**
   * A thrown error on the server: classified from the fixed map, recorded on the span, counted,
   * and logged under the budget. Returns the class entry.
   */
  function serverFailure(span, name, e, ctx) {
    const c = BY_CODE[e?.code] ?? OTHER;
    const traceId = span.spanContext().traceId;
    span.setAttribute('mcp.tool.failure.source', 'instrumentation');
    span.setAttribute('error.type', 'tool_error');
    span.setAttribute('mcp.tool.failure.class', c.class);
    span.setAttribute('mcp.tool.failure.code', c.code);
    span.setAttribute('mcp.tool.failure.correlation_id', traceId);
    span.setAttribute('mcp.tool.failure.retryable', c.retryable);
    span.setStatus({ code: SpanStatusCode.ERROR, message: e?.message });
    serverFailures(name, c.class, c.code);
    const left = takeLog(`${name}\u0000${c.code}`);
    if (left >= 0) {
      const attributes = {
        'mcp.tool.failure.class': c.class,
        'mcp.tool.failure.code': c.code,
        'mcp.tool.failure.correlation_id': traceId,
        'mcp.tool.failure.retryable': c.retryable,
        'gen_ai.tool.name': name,
        'exception.type': e?.name ?? 'Error',
        'exception.message': String(e?.message),
        'exception.stacktrace': e?.stack,
      };
      if (left > 0) attributes['mcp.tool.failure.suppressed_records'] = left;
      logger.emit({
        severityNumber: 17,
        severityText: 'ERROR',
        body: `tools/call ${name} failed (${c.class}/${c.code}, correlationId ${traceId})`,
        attributes,
        context: ctx,
      });
    }
    return c;
  }

  // The server's transport name, given with its tools (one server per process in the bench).
  let serverTransport;
  /** The transport-level server span of `tools/call` requests (`at: 'transport'`). */
  function tap(t) {
    const open = new Map();
    const onmessage = t.onmessage;
    const send = t.send;
    t.onmessage = function (message, extra) {
      if (message.method !== 'tools/call' || message.id === undefined)
        return onmessage.call(this, message, extra);
      const start = performance.now();
      const params = message.params;
      const name = params.name;
      const parent = propagation.extract(ROOT_CONTEXT, params._meta ?? {});
      const span = tracer.startSpan(
        `tools/call ${name}`,
        {
          kind: SpanKind.SERVER,
          attributes: operationAttributes(name, serverTransport, serverVersion, String(message.id)),
        },
        parent,
      );
      const call = { span, start, name, version: serverVersion, thrown: undefined, ctx: undefined };
      call.ctx = trace.setSpan(parent, span).setValue(CALL, call);
      open.set(message.id, call);
      return context.with(call.ctx, () => onmessage.call(this, message, extra));
    };
    t.send = function (message, options) {
      const call = message.method === undefined ? open.get(message.id) : undefined;
      if (call === undefined) return send.call(this, message, options);
      open.delete(message.id);
      let out = message;
      let failureClass;
      const r = message.result;
      if (r?.isError === true && call.thrown !== undefined) {
        const c = serverFailure(call.span, call.name, call.thrown, call.ctx);
        failureClass = c.class;
        // A copy of the SDK's result with the failure object in its _meta.
        const meta = Object.assign({}, r._meta);
        meta[KEY] = failureObject(c, call.span);
        out = {
          jsonrpc: message.jsonrpc,
          id: message.id,
          result: Object.assign({}, r, { _meta: meta }),
        };
      }
      call.span.end();
      serverDuration.record(
        (performance.now() - call.start) / 1000,
        durationAttributes(call.name, serverTransport, call.version, failureClass),
        call.ctx,
      );
      return send.call(this, out, options);
    };
  }

  return {
    client(c, transport, peer) {
      let clientVersion;
      /** What the client holds of its server once connected, as this package records it. */
      let server;
      // The negotiated version, read off the one `initialize` response; then out of the way.
      const request = c.request;
      c.request = function (req, ...rest) {
        if (req.method !== 'initialize') return request.call(this, req, ...rest);
        c.request = request;
        return request.call(this, req, ...rest).then((r) => {
          clientVersion = r.protocolVersion;
          return r;
        });
      };
      const callTool = c.callTool.bind(c);
      c.callTool = (params, ...rest) => {
        const start = performance.now();
        const tool = params.name;
        // SDK 2.x records the version it negotiated (on 2026-07-28 no initialize runs).
        clientVersion ??= c._negotiatedProtocolVersion;
        // The id the SDK's request() is about to take (it runs synchronously from callTool).
        const id = String(c._requestMessageId);
        const span = tracer.startSpan(`tools/call ${tool}`, {
          kind: SpanKind.CLIENT,
          attributes: operationAttributes(tool, transport, clientVersion, id, peer),
        });
        server ??= serverAttributes(c);
        span.setAttributes(server);
        const ctx = trace.setSpan(context.active(), span);
        const meta = { ...params._meta };
        propagation.inject(ctx, meta);
        const end = (failureClass) => {
          span.end();
          clientDuration.record(
            (performance.now() - start) / 1000,
            durationAttributes(tool, transport, clientVersion, failureClass, peer),
            ctx,
          );
        };
        // Object.assign, not `{ ...params, _meta: meta }`: V8 (Node 20) takes a slow path
        // (~0.8 µs) for a spread followed by a key the source lacks.
        return context
          .with(ctx, () => callTool(Object.assign({}, params, { _meta: meta }), ...rest))
          .then(
            (r) => {
              if (r.isError !== true) {
                end(undefined);
                return r;
              }
              const f = r._meta?.[KEY];
              const ok = typeof f?.class === 'string' && typeof f.code === 'string';
              span.setAttribute('error.type', 'tool_error');
              if (ok) {
                span.setAttribute('mcp.tool.failure.class', f.class);
                span.setAttribute('mcp.tool.failure.code', f.code);
                if (typeof f.correlationId === 'string')
                  span.setAttribute('mcp.tool.failure.correlation_id', f.correlationId);
                if (typeof f.retryable === 'boolean')
                  span.setAttribute('mcp.tool.failure.retryable', f.retryable);
                clientFailures(tool, f.class, f.code);
              }
              span.setStatus({ code: SpanStatusCode.ERROR });
              end(ok ? f.class : undefined);
              return r;
            },
            (e) => {
              span.setAttribute('error.type', e?.name ?? '_OTHER');
              span.setStatus({ code: SpanStatusCode.ERROR });
              end(undefined);
              throw e;
            },
          );
      };
      return c;
    },
    server(s) {
      // The negotiated version, from the server's `initialize` handler (once per connection).
      const inner = s.server;
      const initialize = inner._oninitialize;
      if (typeof initialize !== 'function') return s;
      inner._oninitialize = async function (req) {
        const r = await initialize.call(this, req);
        serverVersion = r.protocolVersion;
        return r;
      };
      if (at === 'transport') {
        // The SDK installs its transport callbacks synchronously, before its first await.
        const connect = s.connect.bind(s);
        s.connect = (t) => {
          const connected = connect(t);
          tap(t);
          return connected;
        };
      }
      return s;
    },
    tool(name, cb, transport) {
      serverTransport = transport;
      if (at === 'transport')
        return async (...args) => {
          try {
            return await cb(...args);
          } catch (e) {
            const call = context.active().getValue(CALL);
            if (call !== undefined) call.thrown = e;
            throw e;
          }
        };
      return async (...args) => {
        const start = performance.now();
        const extra = args[args.length - 1];
        // SDK 1.x hands the request over as `extra`, 2.x as `ctx.mcpReq` (whose envelope names
        // the revision on 2026-07-28, where no initialize runs).
        const req = extra.mcpReq;
        const meta = req === undefined ? extra._meta : req._meta;
        const parent = propagation.extract(ROOT_CONTEXT, meta ?? {});
        const version = serverVersion ?? req?.envelope?.[VERSION_KEY];
        const id = String(req === undefined ? extra.requestId : req.id);
        const span = tracer.startSpan(
          `tools/call ${name}`,
          { kind: SpanKind.SERVER, attributes: operationAttributes(name, transport, version, id) },
          parent,
        );
        const ctx = trace.setSpan(parent, span);
        let failureClass;
        try {
          return await context.with(ctx, () => cb(...args));
        } catch (e) {
          const c = serverFailure(span, name, e, ctx);
          failureClass = c.class;
          // The result the SDK would make of the throw, with the failure object in its _meta.
          return {
            content: [{ type: 'text', text: String(e?.message) }],
            isError: true,
            _meta: { [KEY]: failureObject(c, span) },
          };
        } finally {
          span.end();
          serverDuration.record(
            (performance.now() - start) / 1000,
            durationAttributes(name, transport, version, failureClass),
            ctx,
          );
        }
      };
    },
  };
}
