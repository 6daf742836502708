/** The "more" button under an offset-paged list (an infinite query); nothing once every page is in. */
export function LoadMore({ query, label = 'Load more' }: { query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown }; label?: string }) {
  if (!query.hasNextPage) return null;
  return (
    <button type="button" className="load-more" disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
      {query.isFetchingNextPage ? 'Loading…' : label}
    </button>
  );
}
