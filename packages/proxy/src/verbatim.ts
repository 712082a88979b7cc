/**
 * The last step before the wire: each relayed response carries the upstream's own result object,
 * after anything in the downstream server (an instrumentation that adds failure objects, a
 * schema, a revision's encoder) has seen it.
 */

type Message = { id?: unknown; result?: unknown; error?: unknown };
interface Sending {
  send(message: never, options?: never): Promise<void>;
}

/**
 * What goes out for a relayed result: `relayed`, the upstream's object, with what the
 * downstream server wrote in `encoded` kept only where `keep` says (by default nothing).
 */
export type ResultMerge = (relayed: unknown, encoded: unknown) => unknown;

const asRelayed: ResultMerge = (relayed) => relayed;

/**
 * Wraps `transport.send` so a response whose id is in `ledger` goes out with the result `merge`
 * makes of the upstream's object (the ledger entry is dropped then, or on an error response).
 * Installed before the server connects, this wrapper sits closest to the wire.
 */
export function relayResultsVerbatim(
  transport: Sending,
  ledger: Map<unknown, unknown>,
  merge: ResultMerge = asRelayed,
): void {
  const send = transport.send.bind(transport) as (m: Message, o?: unknown) => Promise<void>;
  const wrapped = (message: Message, sendOptions?: unknown): Promise<void> => {
    let outgoing = message;
    if ('id' in message && 'result' in message && ledger.has(message.id)) {
      outgoing = { ...message, result: merge(ledger.get(message.id), message.result) };
      ledger.delete(message.id);
    } else if ('id' in message && 'error' in message) {
      ledger.delete(message.id);
    }
    return send(outgoing, sendOptions);
  };
  (transport as unknown as { send: typeof wrapped }).send = wrapped;
}
