/** The shapes the relay shares with the downstream servers of either SDK line. */
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';

type Params = Record<string, unknown>;

/** What a downstream server gives the relay for one request. */
export interface RelayExtra {
  signal: AbortSignal;
  requestId: string | number;
  sendNotification(notification: { method: string; params?: Params }): Promise<void>;
}

/** What a downstream server mirrors of the upstream (`initialize` answer, or fallbacks). */
export interface UpstreamIdentity {
  capabilities: ServerCapabilities;
  serverInfo: { name: string; version: string };
  instructions: string | undefined;
}

/** The relay behind one downstream server: its requests, notifications and end. */
export interface DownstreamRelay {
  /** Request id to the upstream's own result object, until the response is written. */
  readonly ledger: Map<unknown, unknown>;
  request(method: string, params: unknown, extra: RelayExtra): Promise<Params>;
  notify(notification: { method: string; params?: Params }): Promise<void>;
  closed(): void;
}
