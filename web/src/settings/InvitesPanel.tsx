import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, call, type Space } from '../api/client';
import { keys, spaceQuery, spacesQuery } from '../api/queries';
import { noop, useAction } from '../common/action';
import { ConfirmButton } from '../common/ConfirmButton';
import { CopyField } from './CopyField';
import { EmailInvitations } from './EmailInvitations';
import { inviteUrl, type InvitedRole } from './model';
import { t } from '../i18n';
import { errorText } from '../common/toast';

const ROLES: InvitedRole[] = ['editor', 'member', 'reader'];

function RoleSelect({ label, value, onChange }: { label: string; value: InvitedRole; onChange: (role: InvitedRole) => void }) {
  return (
    <label>
      {t('invites.joinsAs')}
      <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value as InvitedRole)}>
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {t(`spaceRole.${r}`)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** One space's link: created with a role, revoked (disabled), or replaced by a new token. */
function SpaceInvite({ space }: { space: Space }) {
  const { data: full, error } = useQuery(spaceQuery(space.id));
  const [role, setRole] = useState<InvitedRole>('member');
  const run = useAction();
  const link = full?.inviteLink ?? null;
  const path = { spaceId: space.id };
  const write = (work: () => Promise<unknown>) => run(work, keys.space(space.id));
  const create = (forRole: InvitedRole) => write(() => call(api.POST('/spaces/{spaceId}/invite-link', { params: { path }, body: { role: forRole } }))).catch(noop);
  return (
    <article className="invite" aria-labelledby={`invite-${space.id}`} data-testid={`invite-${space.name}`}>
      <h3 id={`invite-${space.id}`}>{space.name}</h3>
      {error && <p className="form-error" role="alert">{errorText(error)}</p>}
      {link?.enabled ? (
        <div className="row">
          <CopyField label={t('invites.linkTo', { name: space.name })} value={inviteUrl(location.origin, link.token)} testId="invite-url" />
          <RoleSelect
            label={t('invites.roleOf', { name: space.name })}
            value={link.role}
            onChange={(r) => void write(() => call(api.PATCH('/spaces/{spaceId}/invite-link/role', { params: { path }, body: { role: r } }))).catch(noop)}
          />
          <button type="button" onClick={() => void create(link.role)}>
            {t('invites.newLink')}
          </button>
          <ConfirmButton
            label={t('invites.revoke')}
            name={t('invites.revokeName', { name: space.name })}
            question={t('invites.revokeQuestion')}
            onConfirm={() => write(() => call(api.PATCH('/spaces/{spaceId}/invite-link/enabled', { params: { path }, body: { enabled: false } })))}
          />
        </div>
      ) : (
        full && (
          <div className="row">
            <span className="muted">{link ? t('invites.revoked') : t('invites.none')}</span>
            <RoleSelect label={t('invites.roleForNew', { name: space.name })} value={role} onChange={setRole} />
            <button type="button" className="primary" onClick={() => void create(role)}>
              {t('invites.create')}
            </button>
          </div>
        )
      )}
      <EmailInvitations space={space} />
    </article>
  );
}

/** Invite links of the spaces the caller administers. */
export function InvitesPanel() {
  const { data: spaces, error } = useQuery(spacesQuery);
  const administered = (spaces ?? []).filter((s) => s.role === 'admin');
  return (
    <section aria-labelledby="invites-title">
      <h2 id="invites-title">{t('invites.title')}</h2>
      <p className="muted">{t('invites.intro')}</p>
      {error && <p className="form-error" role="alert">{errorText(error)}</p>}
      {spaces && administered.length === 0 && <p>{t('invites.noSpace')}</p>}
      {administered.map((s) => (
        <SpaceInvite key={s.id} space={s} />
      ))}
    </section>
  );
}
