/** The metrics of the proxy's Streamable HTTP endpoint (names in src/semconv.ts). */
import type { Counter, MeterProvider, UpDownCounter } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  METRIC_ATTR_HTTP_RESPONSE_STATUS_CODE,
  METRIC_MCP_PROXY_ACTIVE_SESSIONS,
  METRIC_MCP_PROXY_EXPIRED_SESSIONS,
  METRIC_MCP_PROXY_REFUSED_REQUESTS,
} from '@omcp/instrumentation-mcp/semconv';
import { scopeMeter } from '@omcp/instrumentation-mcp/relay';
import { REFUSALS, type RefusalReason } from './http-limits.js';

/** The endpoint's metrics, on the global meter provider unless one is given. */
export class HttpEndpointMetrics {
  private readonly refused: Counter;
  private readonly active: UpDownCounter;
  private readonly expired: Counter;

  constructor(meterProvider?: MeterProvider) {
    const meter = scopeMeter(meterProvider);
    this.refused = meter.createCounter(METRIC_MCP_PROXY_REFUSED_REQUESTS, {
      unit: '{request}',
      description: 'Requests the proxy refused before relaying them, by reason (error.type).',
    });
    this.active = meter.createUpDownCounter(METRIC_MCP_PROXY_ACTIVE_SESSIONS, {
      unit: '{session}',
      description: 'Streamable HTTP sessions open on the proxy.',
    });
    this.expired = meter.createCounter(METRIC_MCP_PROXY_EXPIRED_SESSIONS, {
      unit: '{session}',
      description: 'Sessions the proxy closed after they were idle for sessionIdleMs.',
    });
  }

  refusal(reason: RefusalReason): void {
    this.refused.add(1, {
      [ATTR_ERROR_TYPE]: reason,
      [METRIC_ATTR_HTTP_RESPONSE_STATUS_CODE]: REFUSALS[reason].status,
    });
  }

  sessionOpened(): void {
    this.active.add(1);
  }

  sessionClosed(expired: boolean): void {
    this.active.add(-1);
    if (expired) this.expired.add(1);
  }
}
