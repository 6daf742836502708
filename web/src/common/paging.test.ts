import { describe, expect, it } from 'vitest';
import type { InfiniteData } from '@tanstack/react-query';
import { itemsOf, nextOffset, pageOf, totalOf, type Page } from './paging';
import { ago } from './time';

const answer = (items: unknown[], total: string | null, status = 200) => {
  const headers = new Headers(total === null ? {} : { 'X-Total-Count': total });
  const response = new Response(null, { status, headers });
  return Promise.resolve(status < 300 ? { data: items, response } : { error: { code: 'NOT_FOUND', detail: 'space not found' }, response });
};
const data = (...pages: Array<Page<{ id: number }>>): InfiniteData<Page<{ id: number }>> => ({ pages, pageParams: pages.map((p) => p.offset) });

describe('offset paging', () => {
  it('reads the total from X-Total-Count, and takes a page without it as the whole list', async () => {
    expect(await pageOf(answer([{ id: 1 }], '41'), 20)).toEqual({ items: [{ id: 1 }], offset: 20, total: 41 });
    expect(await pageOf(answer([{ id: 1 }, { id: 2 }], null), 0)).toEqual({ items: [{ id: 1 }, { id: 2 }], offset: 0, total: 2 });
  });

  it('turns a refusal into the problem’s message', async () => {
    await expect(pageOf(answer([], null, 404), 0)).rejects.toThrow('space not found');
  });

  it('asks for the next page until the total is reached (an empty page ends it)', () => {
    expect(nextOffset({ items: [{ id: 1 }, { id: 2 }], offset: 0, total: 5 })).toBe(2);
    expect(nextOffset({ items: [{ id: 5 }], offset: 4, total: 5 })).toBeUndefined();
    expect(nextOffset({ items: [], offset: 4, total: 9 })).toBeUndefined();
  });

  it('lists each item once when the list grew at its head between two pages', () => {
    // Page 2 was loaded after a new item arrived: its first item was the last of page 1.
    const grown = data({ items: [{ id: 9 }, { id: 8 }], offset: 0, total: 4 }, { items: [{ id: 8 }, { id: 7 }], offset: 2, total: 5 });
    expect(itemsOf(grown).map((i) => i.id)).toEqual([9, 8, 7]);
    expect(totalOf(grown)).toBe(5);
    expect(itemsOf(undefined)).toEqual([]);
  });
});

describe('ago', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  it('says how long ago in the largest whole unit, and the date after a week', () => {
    expect(ago('2026-03-10T11:59:58Z', now)).toBe('just now');
    expect(ago('2026-03-10T11:59:30Z', now)).toBe('30 s ago');
    expect(ago('2026-03-10T11:55:00Z', now)).toBe('5 min ago');
    expect(ago('2026-03-10T09:00:00Z', now)).toBe('3 h ago');
    expect(ago('2026-03-08T12:00:00Z', now)).toBe('2 d ago');
    expect(ago('2026-01-01T12:00:00Z', now)).toBe(new Date('2026-01-01T12:00:00Z').toLocaleDateString());
  });
});
