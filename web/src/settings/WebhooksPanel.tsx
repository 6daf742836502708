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
    if (delivery) toast(delivery.status === 'succeeded' ? `Ping delivered (HTTP ${delivery.responseStatus})` : `Ping ${delivery.status}: ${delivery.error ?? `HTTP ${delivery.responseStatus}`}`, delivery.status === 'failed' ? 'error' : 'info');
    setShowDeliveries(true);
  }

  return (
    <li className="webhook" data-testid="webhook">
      <div className="row">
        <code className="webhook-url">{hook.url}</code>
        <span className={hook.enabled ? 'pill on' : 'pill off'}>{hook.enabled ? 'Enabled' : 'Disabled'}</span>
        <span className="muted">{scope}</span>
      </div>
      <div className="row muted">
        <span>Events: {hook.events.join(', ')}</span>
        <span title={when(hook.lastDeliveryAt)}>Last delivery: {hook.lastDeliveryAt ? ago(hook.lastDeliveryAt) : 'none'}</span>
        {hook.failureCount > 0 && <span>{hook.failureCount} failed attempts</span>}
      </div>
      {hook.disabledReason && <p className="form-error">Disabled by the service: {hook.disabledReason}</p>}
      {editing ? (
        <WebhookForm
          title={`Edit webhook ${hook.url}`}
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
            Edit
          </button>
          <button type="button" onClick={() => void update({ enabled: !hook.enabled }).catch(noop)}>
            {hook.enabled ? 'Disable' : 'Enable'}
          </button>
          <button type="button" onClick={() => void ping()}>
            Send test
          </button>
          <button type="button" aria-expanded={showDeliveries} onClick={() => setShowDeliveries(!showDeliveries)}>
            Deliveries
          </button>
          <ConfirmButton label="Delete" name={`webhook ${hook.url}`} question="Delete this webhook?" onConfirm={() => run(() => call(api.DELETE('/webhooks/{webhookId}', { params: { path } })), webhooksKey)} />
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
    ...(isOrgAdmin(organization?.role) ? [{ spaceId: null, label: 'The whole organization' }] : []),
    ...spaces.filter((s) => s.role === 'admin').map((s) => ({ spaceId: s.id, label: `Space ${s.name}` })),
  ];
  const scopeOf = (hook: Webhook) => (hook.spaceId === null ? 'Whole organization' : `Space ${spaceName.get(hook.spaceId) ?? hook.spaceId}`) + (hook.projectId ? ` · project ${projectName.get(hook.projectId) ?? hook.projectId}` : '');
  const items = itemsOf(list.data);

  async function create(input: WebhookInput) {
    const hook = await run(() => call(api.POST('/webhooks', { body: { url: input.url, events: input.events, ...(input.spaceId ? { spaceId: input.spaceId } : {}), ...(input.projectId ? { projectId: input.projectId } : {}) } })), webhooksKey);
    setCreated(hook);
    setCreating(false);
  }

  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <p className="muted">Each event is POSTed to the URL, signed with the webhook’s secret (Standard Webhooks); failed deliveries are retried for about a day.</p>
      {creating ? (
        <WebhookForm title="New webhook" scopes={scopes} onSubmit={create} onCancel={() => setCreating(false)} />
      ) : (
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          New webhook
        </button>
      )}
      {created && <SecretNotice label={`Signing secret of ${created.url}`} value={created.secret} testId="webhook-secret" onDone={() => setCreated(null)} />}
      {list.isError && <p className="form-error" role="alert">{list.error.message}</p>}
      {list.isSuccess && items.length === 0 && <p className="muted">No webhooks yet.</p>}
      <ul className="webhooks">
        {items.map((hook) => (
          <WebhookRow key={hook.id} hook={hook} scope={scopeOf(hook)} />
        ))}
      </ul>
      <LoadMore query={list} />
    </section>
  );
}
