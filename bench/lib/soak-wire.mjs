// A lean MCP client over Streamable HTTP for the soak: node:http with keep-alive connections and
// one JSON.stringify per request, so that the driver's own cost does not bound how many calls
// a soak can make on a busy machine (the SDK client costs several times more per call). It
// speaks only what the soak needs: initialize, tools/call, and DELETE to end a session.
import { Agent, request } from 'node:http';

const PROTOCOL = '2025-06-18';

/** The JSON-RPC message of a response body, plain JSON or the first SSE `data:` line. */
function messageOf(body, type) {
  if (!String(type).includes('text/event-stream')) return JSON.parse(body);
  const line = body.split('\n').find((l) => l.startsWith('data: '));
  if (line === undefined) throw new Error(`no message in the event stream: ${body.slice(0, 200)}`);
  return JSON.parse(line.slice(6));
}

/** One MCP session (or, against a stateless endpoint, a series of independent requests). */
export class WireClient {
  constructor(url, { headers = {}, sockets = 8 } = {}) {
    this.url = new URL(url);
    this.headers = headers;
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets });
    this.session = undefined;
    this.nextId = 1;
  }

  /** Sends one HTTP request; resolves with `{ status, headers, body }`. */
  send(method, body, extraHeaders = {}) {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname,
          method,
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(this.session === undefined ? {} : { 'mcp-session-id': this.session }),
            ...(this.nextId > 1 ? { 'mcp-protocol-version': PROTOCOL } : {}),
            ...this.headers,
            ...extraHeaders,
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode,
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /**
   * Sends a JSON-RPC request; resolves with its response message (rejects on an HTTP error).
   * `paramsJson`, when given, is the params already serialised (a large body made once).
   */
  async rpc(method, params, paramsJson) {
    const id = this.nextId++;
    const body =
      paramsJson === undefined
        ? JSON.stringify({ jsonrpc: '2.0', id, method, params })
        : `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${paramsJson}}`;
    const answer = await this.send('POST', body);
    if (answer.status !== 200) throw new Error(`${method}: HTTP ${answer.status} ${answer.body}`);
    return { answer, message: messageOf(answer.body, answer.headers['content-type']) };
  }

  async initialize() {
    const { answer, message } = await this.rpc('initialize', {
      protocolVersion: PROTOCOL,
      capabilities: {},
      clientInfo: { name: 'soak-wire-client', version: '1.0.0' },
    });
    if (message.result === undefined) throw new Error(`initialize: ${JSON.stringify(message)}`);
    const sid = answer.headers['mcp-session-id'];
    this.session = typeof sid === 'string' ? sid : undefined;
    await this.send(
      'POST',
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    );
    return message.result;
  }

  /** Calls a tool; resolves with its result (rejects on a JSON-RPC error). */
  async callTool(name, args) {
    const { message } = await this.rpc('tools/call', { name, arguments: args });
    if (message.result === undefined) throw new Error(`tools/call: ${JSON.stringify(message)}`);
    return message.result;
  }

  /** Ends the session (DELETE) if there is one, and the connections. */
  async close() {
    if (this.session !== undefined) await this.send('DELETE', undefined);
    this.session = undefined;
    this.agent.destroy();
  }
}
