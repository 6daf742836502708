import { infiniteQueryOptions, type InfiniteData } from '@tanstack/react-query';
import { call } from '../api/client';

/** One page of a list route: its items, where it starts, and the X-Total-Count the server sent. */
export interface Page<T> {
  items: T[];
  offset: number;
  total: number;
}

/** A list answer as one page; a missing X-Total-Count means the page is all there is. */
export async function pageOf<T>(request: Promise<{ data?: T[]; error?: unknown; response: Response }>, offset: number): Promise<Page<T>> {
  const answer = await request;
  const items = await call(Promise.resolve(answer));
  const header = answer.response.headers.get('X-Total-Count');
  return { items, offset, total: header === null ? offset + items.length : Number(header) };
}

/** Where the next page starts, or undefined once the pages hold every item. */
export function nextOffset<T>(page: Page<T>): number | undefined {
  const end = page.offset + page.items.length;
  return end < page.total && page.items.length > 0 ? end : undefined;
}

/**
 * The pages' items in order, each once: a list that grew at its head between two page loads shifts
 * its items down, and the next page repeats some of the previous one's.
 */
export function itemsOf<T extends { id: number }>(data: InfiniteData<Page<T>> | undefined): T[] {
  const seen = new Set<number>();
  const out: T[] = [];
  for (const page of data?.pages ?? []) {
    for (const item of page.items) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      out.push(item);
    }
  }
  return out;
}

/** The total of the most recently loaded page (the newest count the server gave). */
export const totalOf = <T,>(data: InfiniteData<Page<T>> | undefined) => data?.pages.at(-1)?.total ?? 0;

/** An offset-paged list as an infinite query: `load(offset)` fetches one page. */
export const pagedQuery = <T,>(queryKey: readonly unknown[], load: (offset: number) => Promise<Page<T>>) =>
  infiniteQueryOptions({
    queryKey,
    queryFn: ({ pageParam }) => load(pageParam),
    initialPageParam: 0,
    getNextPageParam: nextOffset<T>,
  });
