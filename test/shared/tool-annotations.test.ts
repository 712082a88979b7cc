import { describe, expect, it } from 'vitest';
import {
  MAX_TOOL_LIST_PAGES,
  getToolAnnotations,
  walkToolList,
  walkToolListPages,
} from '../../src/shared/tool-annotations.js';

const page = (names: string[], nextCursor?: unknown) => ({
  tools: names.map((name) => ({ name, annotations: { idempotentHint: true } })),
  ...(nextCursor === undefined ? {} : { nextCursor }),
});

describe('walkToolListPages, the one tools/list pager', () => {
  it('follows nextCursor to the last page, handing each page on in order', async () => {
    const pages: Record<string, unknown> = {
      '': page(['a', 'b'], 'p2'),
      p2: page(['c'], 'p3'),
      p3: page(['d']),
    };
    const asked: Array<string | undefined> = [];
    const seen: unknown[] = [];
    const count = await walkToolListPages(
      async (cursor) => {
        asked.push(cursor);
        return pages[cursor ?? ''];
      },
      (result) => seen.push(result),
    );
    expect(count).toBe(4);
    expect(asked).toEqual([undefined, 'p2', 'p3']);
    expect(seen).toEqual([pages[''], pages.p2, pages.p3]);
  });

  it.each([
    ['a repeated cursor', 'again'],
    ['an empty cursor', ''],
    ['a cursor that is not a string', 7],
  ])('stops at %s', async (_, next) => {
    let calls = 0;
    await walkToolListPages(
      async () => {
        calls += 1;
        return page(['t'], next);
      },
      () => undefined,
    );
    expect(calls).toBe(next === 'again' ? 2 : 1);
  });

  it(`stops after ${MAX_TOOL_LIST_PAGES} pages of a server that never stops`, async () => {
    let calls = 0;
    const count = await walkToolListPages(
      async () => page(['t'], `c${++calls}`),
      () => undefined,
    );
    expect(calls).toBe(MAX_TOOL_LIST_PAGES);
    expect(count).toBe(MAX_TOOL_LIST_PAGES);
  });

  it('a page that fails rejects the walk', async () => {
    await expect(
      walkToolListPages(
        () => Promise.reject(new Error('gone')),
        () => undefined,
      ),
    ).rejects.toThrow('gone');
  });

  it('walkToolList remembers every page for its client', async () => {
    const client = {};
    await walkToolList(client, async (cursor) =>
      cursor === undefined ? page(['x'], 'n') : page(['y']),
    );
    expect(getToolAnnotations(client, 'y')).toEqual({ idempotentHint: true });
    expect(getToolAnnotations(client, 'z')).toBeUndefined();
  });
});
