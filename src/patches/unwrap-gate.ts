/**
 * shimmer's `__unwrap` restores the original on the object that was wrapped, whoever calls it
 * and through whichever object it was reached. `InstrumentationBase._wrap(target, name)` of
 * another instrumentation unwraps whatever `target[name]` it finds wrapped, an inherited method
 * included: Traceloop's `manuallyInstrument({ Client })` wraps `Client.prototype.request`, finds
 * this package's wrapper inherited from `Protocol.prototype`, and so removes it from
 * `Protocol.prototype`, for every client and server in the process. A gated wrapper undoes
 * itself only while its owner unwraps it; anyone else's wrap then simply wraps it.
 */
export class UnwrapGate {
  private owning = false;

  /**
   * Gates the shimmer wrapper now at `target[name]` (nothing happens when there is none). A
   * refused unwrap is told to `onRefused` with what was kept.
   */
  gate(target: object, name: string, onRefused: (message: string) => void): void {
    const wrapped: unknown = (target as Record<string, unknown>)[name];
    if (typeof wrapped !== 'function') return;
    const unwrap: unknown = (wrapped as { __unwrap?: unknown }).__unwrap;
    if (typeof unwrap !== 'function') return;
    const label = `${target.constructor.name}.prototype.${name}`;
    // The same attributes shimmer gives its own `__unwrap`, so shimmer and isWrapped see no change.
    // Should the wrapper refuse the property, it stays as shimmer made it: ungated, still working.
    Reflect.defineProperty(wrapped, '__unwrap', {
      configurable: true,
      enumerable: false,
      writable: true,
      value: () => {
        if (this.owning) return (unwrap as () => unknown)();
        onRefused(
          `mcp: kept the patch of ${label} that another instrumentation tried to unwrap (most likely while wrapping the method a subclass inherits); its wrapper now calls this one`,
        );
        return undefined;
      },
    });
  }

  /** Runs `unwrap` (this package's own unpatching) with the gate open. */
  asOwner(unwrap: () => void): void {
    this.owning = true;
    try {
      unwrap();
    } finally {
      this.owning = false;
    }
  }
}
