// The session table of the proxy's Streamable HTTP endpoint (packages/proxy/src/http-sessions.ts),
// directly, with fake transports and fake timers: sessions counted while opening, entered once
// named, kept from idling while a request is open, expired after sessionIdleMs, gone on close.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionTable, type SessionTransport } from '../src/http-sessions.js';

class FakeTransport implements SessionTransport {
  sessionId: string | undefined;
  onclose: (() => void) | undefined;
  closes = 0;
  constructor(readonly initialized: (id: string) => void) {}
  /** What the SDK does when it answers the initialize: the session gets its id. */
  name(id: string): void {
    this.sessionId = id;
    this.initialized(id);
  }
  async close(): Promise<void> {
    this.closes += 1;
    this.onclose?.();
  }
}

function events() {
  return { opened: 0, closed: [] as boolean[] };
}

function tableOf(maxSessions = 2, sessionIdleMs = 1000) {
  const seen = events();
  const table = new SessionTable<FakeTransport>(
    { maxSessions, sessionIdleMs },
    {
      sessionOpened: () => void (seen.opened += 1),
      sessionClosed: (expired) => void seen.closed.push(expired),
    },
  );
  return { table, seen };
}

/** Opens a session named `id` whose initialize response is `res` (left open). */
async function openNamed(table: SessionTable<FakeTransport>, id: string, res = new EventEmitter()) {
  const session = await table.open(
    (initialized) => new FakeTransport(initialized),
    async (s) => {
      s.holdOpen(res);
      s.transport.name(id);
    },
  );
  return { session, res };
}

describe('SessionTable', () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
  afterEach(() => void vi.useRealTimers());

  it('enters a session once its transport is named, and counts those opening against maxSessions', async () => {
    const { table, seen } = tableOf(2);
    let release!: () => void;
    const pending = table.open(
      (initialized) => new FakeTransport(initialized),
      () => new Promise<void>((r) => (release = r)),
    );
    expect(table.size).toBe(0);
    await openNamed(table, 'a');
    // One open, one opening: the table is full.
    const refused = await table.open(
      (initialized) => new FakeTransport(initialized),
      async () => undefined,
    );
    expect(refused).toBeUndefined();
    release();
    const unnamed = await pending;
    expect(unnamed?.transport.sessionId).toBeUndefined();
    // The one that never got an id is not in the table, so there is room again.
    expect(table.size).toBe(1);
    expect(table.get('a')?.transport.sessionId).toBe('a');
    expect(seen.opened).toBe(1);
    const { session } = await openNamed(table, 'b');
    expect(session).toBeDefined();
    expect(table.size).toBe(2);
  });

  it('releases the opening count when setting up fails', async () => {
    const { table } = tableOf(1);
    await expect(
      table.open(
        (initialized) => new FakeTransport(initialized),
        async () => {
          throw new Error('upstream down');
        },
      ),
    ).rejects.toThrow('upstream down');
    expect((await openNamed(table, 'a')).session).toBeDefined();
  });

  it('idles only when no request is open, and expires after sessionIdleMs', async () => {
    const { table, seen } = tableOf(2, 1000);
    const { session, res } = await openNamed(table, 'a');
    vi.advanceTimersByTime(5000);
    expect(table.size).toBe(1);
    const get = new EventEmitter();
    session!.holdOpen(get);
    res.emit('close');
    expect(session!.openRequests).toBe(1);
    vi.advanceTimersByTime(5000);
    expect(table.size).toBe(1);
    get.emit('close');
    vi.advanceTimersByTime(999);
    expect(table.size).toBe(1);
    // A request in the meantime starts the wait again.
    const post = new EventEmitter();
    session!.holdOpen(post);
    post.emit('close');
    vi.advanceTimersByTime(999);
    expect(table.size).toBe(1);
    vi.advanceTimersByTime(1);
    expect(table.size).toBe(0);
    expect(session!.wasExpired).toBe(true);
    expect(seen.closed).toEqual([true]);
  });

  it('forgets a session whose transport closed, with no timer left to keep it', async () => {
    const { table, seen } = tableOf(2, 1000);
    const { session, res } = await openNamed(table, 'a');
    await session!.transport.close();
    expect(table.get('a')).toBeUndefined();
    expect(seen.closed).toEqual([false]);
    res.emit('close');
    session!.idleIfUnused();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('closes every session on close and keeps none idle after', async () => {
    const { table, seen } = tableOf(3, 1000);
    const a = await openNamed(table, 'a');
    const b = await openNamed(table, 'b');
    await table.close();
    expect(table.closing).toBe(true);
    expect(table.size).toBe(0);
    expect([a.session!.transport.closes, b.session!.transport.closes]).toEqual([1, 1]);
    expect(seen.closed).toEqual([false, false]);
    a.res.emit('close');
    expect(vi.getTimerCount()).toBe(0);
  });
});
