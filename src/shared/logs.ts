import * as api from '@opentelemetry/api';
import type { AttributeValue, Attributes, Context } from '@opentelemetry/api';

/**
 * The logs API as this package uses it, on both OpenTelemetry JS lines: `@opentelemetry/api`
 * 1.10 carries `logs` itself (the 3.x SDKs register there); before it, `@opentelemetry/api-logs`
 * (the 2.x SDKs) registers the global provider under a symbol every copy of that package shares.
 * The provider is read from where the application's SDK put it, at the time of each record,
 * never from a copy of the API of this package's own: a private copy's proxy is never given the
 * SDK's provider, and its records go nowhere.
 */

/** A log record as both lines' `Logger.emit` take it (the fields this package sets). */
export interface LogRecordLike {
  severityNumber?: number;
  severityText?: string;
  body?: AttributeValue;
  attributes?: Attributes;
  context?: Context;
}

/** A logger of either line. */
export interface LoggerLike {
  emit(record: LogRecordLike): void;
}

/** A logger provider of either line: api 1.10's `LoggerProvider` and api-logs' both fit. */
export interface LoggerProviderLike {
  getLogger(name: string, version?: string, options?: { schemaUrl?: string }): LoggerLike;
}

/** Severity numbers of the log data model (the same in api 1.10 and api-logs). */
export const SEVERITY_WARN = 13;
export const SEVERITY_ERROR = 17;

/** Where every copy of `@opentelemetry/api-logs` keeps the global provider, and its version. */
const API_LOGS_GLOBAL = Symbol.for('io.opentelemetry.js.api.logs');
const API_LOGS_COMPATIBILITY_VERSION = 1;

type LogsApi = { getLoggerProvider(): LoggerProviderLike };

/** `logs` of the application's `@opentelemetry/api` (1.10 and later), or undefined before it. */
const apiLogs: LogsApi | undefined = (api as unknown as { logs?: LogsApi }).logs;

/** Which logs API this process has: `api` (1.10's), `api-logs` (registered), or neither. */
export type LogsApiKind = 'api' | 'api-logs' | 'none';

/**
 * The application's global logger provider: an `@opentelemetry/api-logs` registration where one
 * exists (a 2.x SDK, whichever copy of api-logs it used), otherwise api 1.10's (its proxy until a
 * provider registers). `undefined` when neither API is there to register with.
 */
export function globalLoggerProvider():
  { provider: LoggerProviderLike; kind: LogsApiKind } | undefined {
  const getter = (globalThis as Record<symbol, unknown>)[API_LOGS_GLOBAL];
  if (typeof getter === 'function') {
    const provider = (getter as (version: number) => unknown)(API_LOGS_COMPATIBILITY_VERSION);
    if (isProvider(provider)) return { provider, kind: 'api-logs' };
  }
  return apiLogs === undefined ? undefined : { provider: apiLogs.getLoggerProvider(), kind: 'api' };
}

function isProvider(value: unknown): value is LoggerProviderLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { getLogger?: unknown }).getLogger === 'function'
  );
}

/**
 * One instrumentation scope's logger, resolved lazily: from a provider given explicitly, or else
 * from the global one as it is when a record is emitted (an SDK started after this package
 * loaded, or replaced later, is found). The logger is cached per provider.
 */
export class ScopeLogger {
  private provider: LoggerProviderLike | undefined;
  private logger: LoggerLike | undefined;
  private warned = false;

  constructor(
    private readonly name: string,
    private readonly version: string,
    private readonly schemaUrl: string,
    /** Called once when no logs API can be found, with what to do. */
    private readonly onMissing: (message: string) => void,
    private explicit: LoggerProviderLike | undefined = undefined,
  ) {}

  /** Uses `provider` from now on instead of the global one. */
  setProvider(provider: LoggerProviderLike | undefined): void {
    this.explicit = provider;
  }

  /** The logger to emit to now, or undefined when no logs API is present. */
  get(): LoggerLike | undefined {
    const provider = this.explicit ?? globalLoggerProvider()?.provider;
    if (provider === undefined) {
      if (!this.warned) {
        this.warned = true;
        this.onMissing(
          'mcp: no OpenTelemetry logs API in this process (@opentelemetry/api < 1.10 and no @opentelemetry/api-logs provider registered): failure log records are dropped; register a logger provider, or set exceptionSignal "logs/dup" to keep thrown errors on the span',
        );
      }
      return undefined;
    }
    if (provider !== this.provider) {
      this.provider = provider;
      this.logger = provider.getLogger(this.name, this.version, { schemaUrl: this.schemaUrl });
    }
    return this.logger;
  }

  /** Emits `record`, or drops it when there is no logs API. */
  emit(record: LogRecordLike): void {
    this.get()?.emit(record);
  }
}
