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

const tokensKey = ['api-tokens'] as const;
const tokensQuery = queryOptions({ queryKey: tokensKey, queryFn: () => call(api.GET('/user/api-tokens')) });
const EXPIRY: Array<[days: number | null, label: string]> = [
  [30, '30 days'],
  [90, '90 days'],
  [365, '1 year'],
  [null, 'Never'],
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
    <form className="settings-form" onSubmit={submit} aria-label="New API token">
      <label>
        Name
        <input name="name" required maxLength={500} pattern=".*\S.*" placeholder="CI deploys" />
      </label>
      <label>
        Expires in
        <select name="expiry" defaultValue="90">
          {EXPIRY.map(([days, label]) => (
            <option key={label} value={days ?? 'never'}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Access
        <select name="scope" defaultValue="read-write">
          <option value="read-write">Read and write</option>
          <option value="read">Read only</option>
        </select>
      </label>
      <button className="primary" disabled={busy}>
        Create token
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
  const orgName = new Map(organizations.map((o) => [o.id, o.name ?? `Organization ${o.id}`]));
  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <p className="muted">A token is sent as <code>Authorization: Bearer …</code> and acts as you in the organization that was active when it was created. A read-only token can read but never change anything: give one to an AI agent that only needs to look (see docs/mcp.md).</p>
      <AgentAccess />
      <CreateToken onCreated={setCreated} />
      {created && <SecretNotice label={`Token ${created.name}`} value={created.token} testId="new-token" onDone={() => setCreated(null)} />}
      {error && <p className="form-error" role="alert">{error.message}</p>}
      {tokens && tokens.length === 0 && <p className="muted">No tokens.</p>}
      {tokens && tokens.length > 0 && (
        <Table columns={['Name', 'Token', 'Access', 'Organization', 'Created', 'Last used', 'Expires', '']} testId="tokens">
          {tokens.map((t) => (
            <tr key={t.id}>
              <td>{t.name}</td>
              <td>
                <code>{t.prefix}…</code>
              </td>
              <td>{t.scope === 'read' ? 'Read only' : 'Read and write'}</td>
              <td>{orgName.get(t.organizationId) ?? '—'}</td>
              <td title={when(t.createdAt)}>{ago(t.createdAt)}</td>
              <td title={when(t.lastUsedAt)}>{t.lastUsedAt ? ago(t.lastUsedAt) : 'never'}</td>
              <td>{t.expiresAt ? new Date(t.expiresAt).toLocaleDateString() : 'never'}</td>
              <td className="actions">
                <ConfirmButton
                  label="Revoke"
                  name={`token ${t.name}`}
                  question="Revoke it? Whatever uses it stops working."
                  onConfirm={() => run(() => call(api.DELETE('/user/api-tokens/{tokenId}', { params: { path: { tokenId: t.id } } })), tokensKey)}
                />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
