import { useCallback } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { t } from '../i18n';
import { retryable } from './errors';
import { errorText, useToast } from './toast';

/**
 * Runs a write, then reloads the named caches; a refusal is shown as an error message and
 * rethrown (forms keep their text). `quiet` callers that have nothing to keep use `.catch(noop)`.
 * When another try may work (no answer, a server failure), the message carries a Retry button.
 */
export function useAction() {
  const client = useQueryClient();
  const toast = useToast();
  const run = useCallback(
    async <T,>(work: () => Promise<T>, ...invalidate: (readonly unknown[])[]): Promise<T> => {
      try {
        const result = await work();
        await Promise.all(invalidate.map((queryKey) => client.invalidateQueries({ queryKey })));
        return result;
      } catch (err) {
        toast(errorText(err), 'error', retryable(err) ? { label: t('action.retry'), run: () => void run(work, ...invalidate).catch(noop) } : undefined);
        throw err;
      }
    },
    [client, toast],
  );
  return run;
}

export const noop = () => {};
