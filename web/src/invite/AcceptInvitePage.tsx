import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, call } from '../api/client';
import { keys } from '../api/queries';
import { errorText, useToast } from '../common/toast';
import { AuthPage } from '../shell/AuthPage';
import { useSession } from '../shell/session';
import { organizationToOpen } from './model';
import { t, type MessageKey } from '../i18n';
import '../common/page.css';

const loadLink = (token: string) => call(api.GET('/invite-links/{token}', { params: { path: { token } } }));
type LinkData = Awaited<ReturnType<typeof loadLink>>;
const ROLES: Record<LinkData['role'], MessageKey> = { editor: 'invite.role.editor', member: 'invite.role.member', reader: 'invite.role.reader' };

function Intro({ link }: { link: LinkData }) {
  return (
    <p className="invite-intro" data-testid="invite-intro">
      {t('invite.introBefore', { organization: link.organizationName ?? t('invite.anOrganization') })}
      <strong>{link.spaceName}</strong>
      {t('invite.introAfter', { role: ROLES[link.role] ? t(ROLES[link.role]) : link.role })}
    </p>
  );
}

/** A signed-in user joins; then the organization the link belongs to becomes the active one. */
function Join({ token, link }: { token: string; link: LinkData }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { switched } = useSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const toast = useToast();

  async function join() {
    setBusy(true);
    setError(null);
    try {
      await call(api.POST('/invite-links/{token}/join', { params: { path: { token } } }));
      const organizations = await call(api.GET('/user/organizations', { params: { query: { limit: 100 } } }));
      const target = organizationToOpen(organizations, link.organizationName);
      if (target !== null) {
        await call(api.PATCH('/user/organizations/active', { body: { organizationId: target } }));
        switched();
      }
      await client.invalidateQueries({ queryKey: keys.spaces });
      toast(t('invite.joined', { space: link.spaceName }));
      navigate('/', { replace: true });
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  }

  return (
    <div className="page invite-page">
      <h1>{t('invite.join', { space: link.spaceName })}</h1>
      <Intro link={link} />
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="button" className="primary" disabled={busy} onClick={() => void join()}>
        {t('invite.join', { space: link.spaceName })}
      </button>
    </div>
  );
}

/**
 * The page an invite link opens. Signed out: what the link leads to, and sign-up (which joins at
 * once) or sign-in (then Join). Signed in: a Join button.
 */
export function AcceptInvitePage() {
  const token = useParams().token ?? '';
  const { signedIn } = useSession();
  const navigate = useNavigate();
  const { data: link, error } = useQuery({ queryKey: ['invite-link', token], queryFn: () => loadLink(token), retry: false });

  const gone = error instanceof ApiError && error.status === 404;
  const problem = error ? (gone ? t('invite.gone') : error.message) : link && !link.enabled ? t('invite.revoked') : null;
  if (signedIn) {
    if (problem) return <p className="page-error" role="alert">{problem}</p>;
    return link ? <Join token={token} link={link} /> : <p className="loading">{t('invite.loading')}</p>;
  }
  const intro = problem ? (
    <p className="form-error" role="alert">
      {problem}
    </p>
  ) : link ? (
    <Intro link={link} />
  ) : (
    <p>{t('invite.loading')}</p>
  );
  // Signing up with the token has joined already; signing in leads to the Join button.
  return <AuthPage inviteToken={problem ? undefined : token} intro={intro} onSignedIn={(mode) => mode === 'up' && navigate('/', { replace: true })} />;
}
