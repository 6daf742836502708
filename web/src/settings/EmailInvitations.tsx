import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, call, type Space } from '../api/client';
import { noop, useAction } from '../common/action';
import { ConfirmButton } from '../common/ConfirmButton';
import { useToast } from '../common/toast';
import { when } from '../common/time';
import type { InvitedRole } from './model';
import { t } from '../i18n';

const ROLES: InvitedRole[] = ['editor', 'member', 'reader'];
const invitationsKey = (spaceId: number) => ['space', spaceId, 'invitations'] as const;

/**
 * A space's invitations by email: a form to invite an address with a role, and the open ones
 * (pending, or expired) with Resend (a new link, 7 more days) and Revoke. A service without email
 * answers the form with EMAIL_NOT_CONFIGURED, shown in words.
 */
export function EmailInvitations({ space }: { space: Space }) {
  const path = { spaceId: space.id };
  const key = invitationsKey(space.id);
  const { data: invitations } = useQuery({ queryKey: key, queryFn: () => call(api.GET('/spaces/{spaceId}/invitations', { params: { path, query: { limit: 500 } } })) });
  const [role, setRole] = useState<InvitedRole>('member');
  const run = useAction();
  const toast = useToast();

  async function invite(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const email = String(new FormData(form).get('email')).trim();
    await run(() => call(api.POST('/spaces/{spaceId}/invitations', { params: { path }, body: { email, role } })), key)
      .then(() => {
        form.reset();
        toast(t('emailInvites.sent', { email }));
      })
      .catch(noop);
  }

  return (
    <div className="email-invitations" data-testid={`email-invitations-${space.name}`}>
      <h4>{t('emailInvites.title')}</h4>
      <form className="row" onSubmit={(e) => void invite(e)} aria-label={t('emailInvites.emailFor', { name: space.name })}>
        <input name="email" type="email" required maxLength={320} placeholder={t('emailInvites.email')} aria-label={t('emailInvites.emailFor', { name: space.name })} />
        <select aria-label={t('emailInvites.roleFor', { name: space.name })} value={role} onChange={(e) => setRole(e.target.value as InvitedRole)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {t(`spaceRole.${r}`)}
            </option>
          ))}
        </select>
        <button className="primary">{t('emailInvites.send')}</button>
      </form>
      {invitations && invitations.length === 0 && <p className="muted">{t('emailInvites.none')}</p>}
      {invitations && invitations.length > 0 && (
        <ul className="email-invitation-list" aria-label={t('emailInvites.pendingOf', { name: space.name })}>
          {invitations.map((i) => (
            <li key={i.id} className="row">
              <span>{i.email}</span>
              <span className="muted">{t(`spaceRole.${i.role}`)}</span>
              <span className="muted">{i.state === 'expired' ? t('emailInvites.expired') : t('emailInvites.expires', { when: when(i.expiresAt) })}</span>
              <button
                type="button"
                aria-label={`${t('emailInvites.resend')} ${t('emailInvites.resendName', { email: i.email })}`}
                onClick={() =>
                  void run(() => call(api.POST('/spaces/{spaceId}/invitations/{invitationId}/resend', { params: { path: { ...path, invitationId: i.id } } })), key)
                    .then(() => toast(t('emailInvites.resent', { email: i.email })))
                    .catch(noop)
                }
              >
                {t('emailInvites.resend')}
              </button>
              <ConfirmButton
                label={t('emailInvites.revoke')}
                name={t('emailInvites.revokeName', { email: i.email })}
                question={t('emailInvites.revokeQuestion')}
                onConfirm={() => run(() => call(api.DELETE('/spaces/{spaceId}/invitations/{invitationId}', { params: { path: { ...path, invitationId: i.id } } })), key)}
              />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
