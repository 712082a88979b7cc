import Module from 'node:module';
import { dirname, sep } from 'node:path';

/**
 * The packages `@opentelemetry/sdk-node`'s index requires whatever `OTEL_*` selects: every OTLP
 * exporter of every protocol, Prometheus, Zipkin, the Jaeger and B3 propagators, and the
 * declarative configuration reader. Together about 600 of the 1,000 modules its index loads, and
 * most of its load time; a NodeSDK started from the environment uses at most a few of them.
 */
export const SELECTED_ON_USE = /^@opentelemetry\/(?:exporter-|propagator-|otlp-|configuration$)/;

type Load = (request: string, parent: unknown, isMain: boolean) => unknown;
const loader = Module as unknown as { _load: Load };

/**
 * A module's exports that load it on first use: sdk-node reaches into them only where it builds
 * what `OTEL_*` names (`new otlp_proto.OTLPTraceExporter()`), so a module nothing builds from is
 * never loaded, and one that is loads as it would have, through the same `require`.
 */
function onUse(load: () => object): object {
  let exports: object | undefined;
  const real = (): object => (exports ??= load());
  return new Proxy(Object.create(null) as object, {
    get: (_, key) => Reflect.get(real(), key) as unknown,
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
      // A proxy may not report a property as non-configurable that its target lacks.
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    set: (_, key, value) => Reflect.set(real(), key, value),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}

/**
 * `require(name)` of the CommonJS package at `path` (sdk-node's main file), with each package
 * {@link SELECTED_ON_USE} that a file of that package requires handed over to load on first use.
 * The hand-over lasts this one synchronous call: every other `require`, before, during (other
 * packages') and after, is untouched. Where `Module._load` is not a function (a runtime without
 * Node.js's loader), the package loads whole.
 */
export function requireSelectedOnUse(
  req: (name: string) => unknown,
  name: string,
  path: string,
): unknown {
  const original = loader._load;
  if (typeof original !== 'function') return req(name);
  const folder = packageFolder(path, name);
  loader._load = function (this: unknown, request, parent, isMain) {
    const from = (parent as { filename?: unknown } | null | undefined)?.filename;
    if (SELECTED_ON_USE.test(request) && typeof from === 'string' && from.startsWith(folder))
      return onUse(() => original.call(this, request, parent, isMain) as object);
    return original.call(this, request, parent, isMain);
  };
  try {
    return req(name);
  } finally {
    loader._load = original;
  }
}

/** The folder of package `name` that `path` is in (`…/node_modules/@scope/name/`). */
function packageFolder(path: string, name: string): string {
  const marker = `${sep}node_modules${sep}${name.split('/').join(sep)}${sep}`;
  const at = path.lastIndexOf(marker);
  return at === -1 ? `${dirname(path)}${sep}` : path.slice(0, at + marker.length);
}
