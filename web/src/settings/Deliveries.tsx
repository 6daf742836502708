import { useInfiniteQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { LoadMore } from '../common/LoadMore';
import { itemsOf, pageOf, pagedQuery } from '../common/paging';
import { ago, when } from '../common/time';
import { Table } from './Table';
import { t } from '../i18n';

export const deliveriesKey = (webhookId: number) => ['webhooks', webhookId, 'deliveries'] as const;

const deliveriesQuery = (webhookId: number) =>
  pagedQuery(deliveriesKey(webhookId), (offset) => pageOf(api.GET('/webhooks/{webhookId}/deliveries', { params: { path: { webhookId }, query: { limit: 10, offset } } }), offset));

/** A webhook's recent deliveries (the API keeps 30 days), newest first, with the last attempt's outcome. */
export function Deliveries({ webhookId }: { webhookId: number }) {
  const query = useInfiniteQuery(deliveriesQuery(webhookId));
  const items = itemsOf(query.data);
  if (query.isError) return <p className="form-error" role="alert">{query.error.message}</p>;
  if (query.isSuccess && items.length === 0) return <p className="muted">{t('deliveries.none')}</p>;
  return (
    <>
      <Table columns={[t('deliveries.column.event'), t('deliveries.column.status'), t('deliveries.column.attempts'), t('deliveries.column.answer'), t('deliveries.column.when')]} caption={t('deliveries.caption')} testId="deliveries">
        {items.map((d) => (
          <tr key={d.id}>
            <td>
              <code>{d.eventType}</code>
            </td>
            <td className={`delivery-${d.status}`}>{d.status}</td>
            <td>{d.attempts}</td>
            <td>
              {d.responseStatus ?? '—'}
              {d.durationMs !== null && t('deliveries.duration', { ms: d.durationMs })}
              {d.error && <span className="muted"> · {d.error}</span>}
              {d.nextRetryAt && <span className="muted">{t('deliveries.nextAttempt', { when: when(d.nextRetryAt) })}</span>}
            </td>
            <td title={when(d.updatedAt)}>{ago(d.updatedAt)}</td>
          </tr>
        ))}
      </Table>
      <LoadMore query={query} label={t('deliveries.older')} />
    </>
  );
}
