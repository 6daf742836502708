import { useState } from 'react';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';
import { organizationQuery, projectsQuery, spacesQuery } from '../api/queries';
import { noop, useAction } from '../common/action';
import { useToast } from '../common/toast';
import { LoadMore } from '../common/LoadMore';
import { itemsOf, pageOf, pagedQuery } from '../common/paging';
import { ago, when } from '../common/time';
import { ConfirmButton } from '../common/ConfirmButton';
import { SecretNotice } from './CopyField';
import { Deliveries } from './Deliveries';
import { isOrgAdmin, webhookChanges, type Webhook } from './model';
import { WebhookForm, type WebhookInput } from './WebhookForm';
import { t, tn } from '../i18n';

const webhooksKey = ['webhooks'] as const;
const webhooksQuery = pagedQuery([...webhooksKey, 'list'], (offset) => pageOf(api.GET('/webhooks', { params: { query: { limit: 50, offset } } }), offset));

function WebhookRow({ hook, scope }: { hook: Webhook; scope: string }) {
  const [editing, setEditing] = useState(false);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const run = useAction();
  const toast = useToast();
  const path = { webhookId: hook.id };
  const update = (body: { url?: string; events?: string[]; enabled?: boolean }) => run(() => call(api.PATCH('/webhooks/{webhookId}', { params: { path }, body })), webhooksKey);

  async function ping() {
    const delivery = await run(() => call(api.POST('/webhooks/{webhookId}/test', { params: { path } })), webhooksKey).catch(() => null);
    if (delivery) toast(delivery.status === 'succeeded' ? t('webhooks.pingDelivered', { status: String(delivery.responseStatus) }) : t('webhooks.pingOutcome', { status: delivery.status, reason: delivery.error ?? `HTTP ${delivery.responseStatus}` }), delivery.status === 'failed' ? 'error' : 'info');
    setShowDeliveries(true);
  }

  return (
    <li className="webhook" data-testid="webhook">
      <div className="row">
        <code className="webhook-url">{hook.url}</code>
        <span className={hook.enabled ? 'pill on' : 'pill off'}>{hook.enabled ? t('webhooks.enabled') : t('webhooks.disabled')}</span>
        <span className="muted">{scope}</span>
      </div>
      <div className="row muted">
        <span>{t('webhooks.eventsList', { events: hook.events.join(', ') })}</span>
        <span title={when(hook.lastDeliveryAt)}>{t('webhooks.lastDelivery', { when: hook.lastDeliveryAt ? ago(hook.lastDeliveryAt) : t('webhooks.lastDeliveryNone') })}</span>
        {hook.failureCount > 0 && <span>{tn('webhooks.failedAttempts', hook.failureCount)}</span>}
      </div>
      {hook.disabledReason && <p className="form-error">{t('webhooks.disabledBy', { reason: hook.disabledReason })}</p>}
      {editing ? (
        <WebhookForm
          title={t('webhooks.editTitle', { url: hook.url })}
          initial={hook}
          onSubmit={async (input: WebhookInput) => {
            const changes = webhookChanges(hook, input);
            if (Object.keys(changes).length > 0) await update(changes);
            setEditing(false);
          }}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <div className="row">
          <button type="button" onClick={() => setEditing(true)}>
            {t('webhooks.edit')}
          </button>
          <button type="button" onClick={() => void update({ enabled: !hook.enabled }).catch(noop)}>
            {hook.enabled ? t('webhooks.disable') : t('webhooks.enable')}
          </button>
          <button type="button" onClick={() => void ping()}>
            {t('webhooks.sendTest')}
          </button>
          <button type="button" aria-expanded={showDeliveries} onClick={() => setShowDeliveries(!showDeliveries)}>
            {t('webhooks.deliveries')}
          </button>
          <ConfirmButton label={t('action.delete')} name={t('webhooks.deleteName', { url: hook.url })} question={t('webhooks.deleteQuestion')} onConfirm={() => run(() => call(api.DELETE('/webhooks/{webhookId}', { params: { path } })), webhooksKey)} />
        </div>
      )}
      {showDeliveries && <Deliveries webhookId={hook.id} />}
    </li>
  );
}

/** Webhooks the caller manages: the organization's (administrators) and those of spaces it administers. */
export function WebhooksPanel() {
  const list = useInfiniteQuery(webhooksQuery);
  const { data: organization } = useQuery(organizationQuery);
  const { data: spaces = [] } = useQuery(spacesQuery);
  const { data: projects = [] } = useQuery(projectsQuery);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Schemas['CreatedWebhook'] | null>(null);
  const run = useAction();
  const spaceName = new Map(spaces.map((s) => [s.id, s.name]));
  const projectName = new Map(projects.map((p) => [p.id, p.name]));
  const scopes = [
    ...(isOrgAdmin(organization?.role) ? [{ spaceId: null, label: t('webhooks.scope.wholeOrganization') }] : []),
    ...spaces.filter((s) => s.role === 'admin').map((s) => ({ spaceId: s.id, label: t('webhooks.scope.space', { name: s.name }) })),
  ];
  const scopeOf = (hook: Webhook) => (hook.spaceId === null ? t('webhooks.scope.organization') : t('webhooks.scope.space', { name: spaceName.get(hook.spaceId) ?? hook.spaceId })) + (hook.projectId ? t('webhooks.scope.project', { name: projectName.get(hook.projectId) ?? hook.projectId }) : '');
  const items = itemsOf(list.data);

  async function create(input: WebhookInput) {
    const hook = await run(() => call(api.POST('/webhooks', { body: { url: input.url, events: input.events, ...(input.spaceId ? { spaceId: input.spaceId } : {}), ...(input.projectId ? { projectId: input.projectId } : {}) } })), webhooksKey);
    setCreated(hook);
    setCreating(false);
  }

  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">{t('webhooks.title')}</h2>
      <p className="muted">{t('webhooks.intro')}</p>
      {creating ? (
        <WebhookForm title={t('webhooks.new')} scopes={scopes} onSubmit={create} onCancel={() => setCreating(false)} />
      ) : (
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          {t('webhooks.new')}
        </button>
      )}
      {created && <SecretNotice label={t('webhooks.secretOf', { url: created.url })} value={created.secret} testId="webhook-secret" onDone={() => setCreated(null)} />}
      {list.isError && <p className="form-error" role="alert">{list.error.message}</p>}
      {list.isSuccess && items.length === 0 && <p className="muted">{t('webhooks.none')}</p>}
      <ul className="webhooks">
        {items.map((hook) => (
          <WebhookRow key={hook.id} hook={hook} scope={scopeOf(hook)} />
        ))}
      </ul>
      <LoadMore query={list} />
    </section>
  );
}
