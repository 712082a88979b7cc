import type { RateBudget } from './shared/rate-budget.js';
import type { DiagLogger, Tracer } from '@opentelemetry/api';
import type { LoggerLike } from './shared/logs.js';
import type { McpInstruments } from './shared/metrics.js';
import type { McpInstrumentationConfig } from './types.js';
import type { ClassificationRules } from '@omcp/tool-failure';

/** Config with every default applied. */
export interface ResolvedConfig extends McpInstrumentationConfig {
  captureToolPayloads: boolean;
  addFailureObjects: boolean;
  declareExtension: boolean;
  trustIncomingContext: boolean;
  propagateContext: boolean;
  metaKey: string;
  metricCodes: ReadonlySet<string>;
  maxAttributeLength: number;
  emitFailureLogs: boolean;
  /** Thrown errors also (or, without failure logs, only) as `exception` span events. */
  exceptionSpanEvents: boolean;
  redactThrownErrorText: boolean;
  /** `classificationRules`, checked (a file read once, when the configuration is resolved). */
  rules: ClassificationRules | undefined;
  builtInRulePacks: boolean;
  toolResultOutputs: boolean;
  /** `maxStackTracesPerSecond`, checked. */
  stackTracesPerSecond: number;
  /** `maxFailureLogsPerSecond`, checked. */
  failureLogsPerSecond: number;
}

/** What the patches need from the instrumentation, read fresh on every call. */
export interface TelemetrySource {
  tracer(): Tracer;
  instruments(): McpInstruments;
  logger(): LoggerLike;
  config(): ResolvedConfig;
  /**
   * The storm budgets of the instrumentation instance: they live as long as it does, and a
   * `setConfig()` that keeps their rates keeps their state.
   */
  budgets(): { stacks: RateBudget; logs: RateBudget };
  /** False once the instrumentation is disabled: taps and wrappers then pass everything through. */
  active(): boolean;
  diag: DiagLogger;
}

/** A JSON-RPC message as far as the patches look at it. */
export interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/** The part of an MCP transport the tap touches. */
export interface TransportLike {
  onmessage?: (message: JsonRpcMessage, extra?: unknown) => void;
  onclose?: () => void;
  send: (message: JsonRpcMessage, options?: unknown) => Promise<void>;
  sessionId?: string;
}
