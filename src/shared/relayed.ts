/**
 * The handshake between a relaying proxy and a server-side instrumentation in the same process
 * (possibly another copy of this package, hence a global): a result relayed from an upstream is
 * recorded by the server tap but never completed with a failure object of its own.
 */
/** Results a relaying proxy passes on: the server tap records them but never completes them. */
export const relayed: WeakSet<object> = ((globalThis as Record<symbol, unknown>)[
  Symbol.for('omcp.mcp.relayed')
] ??= new WeakSet<object>()) as WeakSet<object>;

/** Marks `result` as relayed from an upstream server, so no failure object is added to it here. */
export function markRelayed<T>(result: T): T {
  if (typeof result === 'object' && result !== null) relayed.add(result);
  return result;
}

/**
 * Servers that relay another server's capabilities (the proxy's downstream servers): the server
 * tap declares nothing of its own in their `initialize` or `server/discover` results, so a caller
 * sees exactly what the upstream declared.
 */
export const relaying: WeakSet<object> = ((globalThis as Record<symbol, unknown>)[
  Symbol.for('omcp.mcp.relaying')
] ??= new WeakSet<object>()) as WeakSet<object>;

/**
 * Marks `server` as relaying an upstream's capabilities: the server tap declares nothing of its
 * own in its `initialize` or `server/discover` results.
 */
export function markRelaying<T extends object>(server: T): T {
  relaying.add(server);
  return server;
}
