import { useCallback } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { errorText, useToast } from './toast';

/**
 * Runs a write, then reloads the named caches; a refusal is shown as an error message and
 * rethrown (forms keep their text). `quiet` callers that have nothing to keep use `.catch(noop)`.
 */
export function useAction() {
  const client = useQueryClient();
  const toast = useToast();
  return useCallback(
    async <T,>(work: () => Promise<T>, ...invalidate: (readonly unknown[])[]): Promise<T> => {
      try {
        const result = await work();
        await Promise.all(invalidate.map((queryKey) => client.invalidateQueries({ queryKey })));
        return result;
      } catch (err) {
        toast(errorText(err), 'error');
        throw err;
      }
    },
    [client, toast],
  );
}

export const noop = () => {};
