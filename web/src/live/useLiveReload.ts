import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useSession } from '../shell/session';

/**
 * Reloads a screen's caches when an event of one of the given type prefixes arrives. Pages and
 * reglaments are read whole (no payload patching as for the board): a refetch is the simple truth.
 */
export function useLiveReload(prefixes: readonly string[], queryKey: readonly unknown[]): void {
  const { live } = useSession();
  const client = useQueryClient();
  const prefixKey = prefixes.join(',');
  const cacheKey = JSON.stringify(queryKey);
  useEffect(() => {
    const wanted = prefixKey.split(',');
    const key = JSON.parse(cacheKey) as unknown[];
    return live.onEvent((e) => {
      if (wanted.some((p) => e.type.startsWith(p))) void client.invalidateQueries({ queryKey: key });
    });
  }, [live, client, prefixKey, cacheKey]);
}
