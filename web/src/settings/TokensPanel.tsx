import { useState, type FormEvent } from 'react';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';
import { organizationsQuery } from '../api/queries';
import { useAction } from '../common/action';
import { ago, when } from '../common/time';
import { ConfirmButton } from '../common/ConfirmButton';
import { SecretNotice } from './CopyField';
import { expiresAtFor } from './model';
import { Table } from './Table';
import { AgentAccess } from './AgentAccess';
import { t, type MessageKey } from '../i18n';

const tokensKey = ['api-tokens'] as const;
const tokensQuery = queryOptions({ queryKey: tokensKey, queryFn: () => call(api.GET('/user/api-tokens')) });
const EXPIRY: Array<[days: number | null, label: MessageKey]> = [
  [30, 'tokens.expiry.30'] ,
  [90, 'tokens.expiry.90'],
  [365, 'tokens.expiry.365'],
  [null, 'tokens.expiry.never'],
];

function CreateToken({ onCreated }: { onCreated: (token: Schemas['CreatedApiToken']) => void }) {
  const run = useAction();
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const days = String(data.get('expiry'));
    setBusy(true);
    try {
      const scope = data.get('scope') === 'read' ? 'read' : 'read-write';
      const body = { name: String(data.get('name')).trim(), expiresAt: expiresAtFor(days === 'never' ? null : Number(days)), scope } as const;
      onCreated(await run(() => call(api.POST('/user/api-tokens', { body })), tokensKey));
      form.reset();
    } catch {
      // Shown by useAction; the form keeps what was typed.
    } finally {
      setBusy(false);
    }
  }
  return (
    <form className="settings-form" onSubmit={submit} aria-label={t('tokens.new')}>
      <label>
        {t('tokens.name')}
        <input name="name" required maxLength={500} pattern=".*\S.*" placeholder={t('tokens.namePlaceholder')} />
      </label>
      <label>
        {t('tokens.expiresIn')}
        <select name="expiry" defaultValue="90">
          {EXPIRY.map(([days, label]) => (
            <option key={label} value={days ?? 'never'}>
              {t(label)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('tokens.access')}
        <select name="scope" defaultValue="read-write">
          <option value="read-write">{t('tokens.readWrite')}</option>
          <option value="read">{t('tokens.readOnly')}</option>
        </select>
      </label>
      <button className="primary" disabled={busy}>
        {t('tokens.create')}
      </button>
    </form>
  );
}

/** The caller's API tokens: each acts as them in the organization active when it was made. */
export function TokensPanel() {
  const { data: tokens, error } = useQuery(tokensQuery);
  const { data: organizations = [] } = useQuery(organizationsQuery);
  const [created, setCreated] = useState<Schemas['CreatedApiToken'] | null>(null);
  const run = useAction();
  const orgName = new Map(organizations.map((o) => [o.id, o.name ?? t('tokens.organizationN', { id: o.id })]));
  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">{t('tokens.title')}</h2>
      <p className="muted">{t('tokens.introBefore')}<code>{'Authorization: Bearer …'}</code>{t('tokens.introAfter')}</p>
      <AgentAccess />
      <CreateToken onCreated={setCreated} />
      {created && <SecretNotice label={t('tokens.tokenName', { name: created.name })} value={created.token} testId="new-token" onDone={() => setCreated(null)} />}
      {error && <p className="form-error" role="alert">{error.message}</p>}
      {tokens && tokens.length === 0 && <p className="muted">{t('tokens.none')}</p>}
      {tokens && tokens.length > 0 && (
        <Table columns={[t('tokens.column.name'), t('tokens.column.token'), t('tokens.column.access'), t('tokens.column.organization'), t('tokens.column.created'), t('tokens.column.lastUsed'), t('tokens.column.expires'), '']} testId="tokens">
          {tokens.map((token) => (
            <tr key={token.id}>
              <td>{token.name}</td>
              <td>
                <code>{token.prefix}…</code>
              </td>
              <td>{token.scope === 'read' ? t('tokens.readOnly') : t('tokens.readWrite')}</td>
              <td>{orgName.get(token.organizationId) ?? '—'}</td>
              <td title={when(token.createdAt)}>{ago(token.createdAt)}</td>
              <td title={when(token.lastUsedAt)}>{token.lastUsedAt ? ago(token.lastUsedAt) : t('tokens.never')}</td>
              <td>{token.expiresAt ? new Date(token.expiresAt).toLocaleDateString() : t('tokens.never')}</td>
              <td className="actions">
                <ConfirmButton
                  label={t('tokens.revoke')}
                  name={t('tokens.revokeName', { name: token.name })}
                  question={t('tokens.revokeQuestion')}
                  onConfirm={() => run(() => call(api.DELETE('/user/api-tokens/{tokenId}', { params: { path: { tokenId: token.id } } })), tokensKey)}
                />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
