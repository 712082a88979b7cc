// The owners of what upstream notifications name (packages/proxy/src/downstreams.ts): what a notification
// names, and where `Downstreams` delivers it, with recording downstream servers.
import { describe, expect, it } from 'vitest';
import { Downstreams, namedIn, type DownstreamServer } from '../src/downstreams.js';

type Note = { method: string; params?: Record<string, unknown> };

function server(): DownstreamServer & { got: Note[] } {
  const got: Note[] = [];
  return {
    got,
    notification: async (n) => {
      got.push(n);
    },
    close: async () => {},
  };
}

describe('namedIn', () => {
  it('a resource by its uri, a task by its id or its related-task _meta, a request by its id, token or elicitation', () => {
    expect(
      namedIn({ method: 'notifications/resources/updated', params: { uri: 'a://x' } }),
    ).toEqual({ kind: 'resource', uri: 'a://x' });
    expect(namedIn({ method: 'notifications/tasks/status', params: { taskId: 't1' } })).toEqual({
      kind: 'task',
      taskId: 't1',
    });
    expect(
      namedIn({
        method: 'notifications/message',
        params: {
          level: 'info',
          _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't2' } },
        },
      }),
    ).toEqual({ kind: 'task', taskId: 't2' });
    for (const key of ['requestId', 'progressToken', 'elicitationId'])
      expect(namedIn({ method: 'notifications/x', params: { [key]: 7 } })).toEqual({
        kind: 'request',
        key,
      });
    expect(namedIn({ method: 'notifications/message', params: { level: 'info' } })).toBeUndefined();
    expect(namedIn({ method: 'notifications/message' })).toBeUndefined();
  });
});

describe('Downstreams: owners', () => {
  it('an update goes to the URI’s subscribers only; a task’s notes to its creator; an unowned one to no one, said once', () => {
    const lines: string[] = [];
    const all = new Downstreams((l) => lines.push(l));
    const [sa, sb] = [server(), server()];
    const a = all.add(sa);
    const b = all.add(sb);
    // Only b has a request in flight: the in-flight rule would have picked b.
    all.begin(b, { sendNotification: async () => {} });
    all.subscribe(a, 'mem://a');
    all.ownTask(a, 'task-a');
    all.deliver({ method: 'notifications/resources/updated', params: { uri: 'mem://a' } });
    all.deliver({ method: 'notifications/tasks/status', params: { taskId: 'task-a' } });
    all.deliver({ method: 'notifications/resources/updated', params: { uri: 'mem://nobody' } });
    all.deliver({ method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
    expect(sa.got.map((n) => n.method)).toEqual([
      'notifications/resources/updated',
      'notifications/tasks/status',
    ]);
    expect(sb.got).toEqual([]);
    expect(lines).toEqual([expect.stringMatching(/names a resource no downstream connection/)]);
  });

  it('unsubscribing and leaving: whether another connection still holds the URI', () => {
    const all = new Downstreams(() => {});
    const a = all.add(server());
    const b = all.add(server());
    all.subscribe(a, 'mem://shared');
    all.subscribe(b, 'mem://shared');
    all.subscribe(a, 'mem://only-a');
    expect(all.unsubscribe(a, 'mem://shared')).toBe(true);
    expect(all.remove(a)).toEqual(['mem://only-a']);
    expect(all.remove(b)).toEqual(['mem://shared']);
  });
});
