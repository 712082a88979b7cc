import {
  metrics,
  trace,
  type Meter,
  type MeterProvider,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { SCHEMA_URL } from '../semconv.js';
import { ScopeLogger, type LoggerProviderLike } from './logs.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version.js';

// The instrumentation scope every span, metric and log record of the workspace is recorded in:
// this package's name and version, with the semantic conventions' schema. The proxy's endpoint
// metrics use it too, so a dashboard finds them where it finds the rest.

/** The scope's options: the schema of the semantic conventions its names follow. */
const SCOPE_OPTIONS = Object.freeze({ schemaUrl: SCHEMA_URL });

/** The scope's tracer from `provider` (the global one unless given). */
export function scopeTracer(provider: TracerProvider = trace.getTracerProvider()): Tracer {
  return provider.getTracer(PACKAGE_NAME, PACKAGE_VERSION, SCOPE_OPTIONS);
}

/** The scope's meter from `provider` (the global one unless given). */
export function scopeMeter(provider: MeterProvider = metrics.getMeterProvider()): Meter {
  return provider.getMeter(PACKAGE_NAME, PACKAGE_VERSION, SCOPE_OPTIONS);
}

/**
 * The scope's logger, from `provider` once given, else the logs API's global provider of either
 * OpenTelemetry line; `onMissing` is told once when no logs API can be found.
 */
export function scopeLogger(
  onMissing: (message: string) => void,
  provider?: LoggerProviderLike,
): ScopeLogger {
  return new ScopeLogger(PACKAGE_NAME, PACKAGE_VERSION, SCHEMA_URL, onMissing, provider);
}
