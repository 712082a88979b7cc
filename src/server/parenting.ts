import { trace, type Context, type Link } from '@opentelemetry/api';

/** Where a server span starts: its parent context, its links, and whether it is a new root. */
export interface Parenting {
  parent: Context;
  links: Link[] | undefined;
  root: boolean;
}

/**
 * The parent of a server span, from the context the transport runs the request in (`ambient`,
 * e.g. an HTTP server span) and the trace context the caller sent in `params._meta`
 * (`remote`). Trusted, the caller's context is the parent and a transport span of another trace
 * a link; untrusted, the span starts a new trace and links both, so a caller cannot choose the
 * server's trace ID. Pure: nothing is read but its arguments.
 */
export function parentFor(
  ambient: Context,
  remote: Context | undefined,
  trustRemote: boolean,
): Parenting {
  const remoteSpan = remote === undefined ? undefined : trace.getSpanContext(remote);
  if (remote === undefined || remoteSpan === undefined)
    return { parent: ambient, links: undefined, root: false };
  const ambientSpan = trace.getSpanContext(ambient);
  if (trustRemote) {
    const links =
      ambientSpan !== undefined && ambientSpan.traceId !== remoteSpan.traceId
        ? [{ context: ambientSpan }]
        : undefined;
    return { parent: remote, links, root: false };
  }
  const links: Link[] = [{ context: remoteSpan }];
  if (ambientSpan !== undefined) links.push({ context: ambientSpan });
  return { parent: trace.deleteSpan(ambient), links, root: true };
}
