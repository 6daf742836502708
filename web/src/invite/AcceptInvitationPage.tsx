import { type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, call } from '../api/client';
import { keys } from '../api/queries';
import { FormError, useSubmit } from '../common/submit';
import { useToast } from '../common/toast';
import { AuthCard } from '../shell/AuthCard';
import { AuthPage } from '../shell/AuthPage';
import { useSession } from '../shell/session';
import { organizationToOpen } from './model';
import { t, type MessageKey } from '../i18n';

const loadInvitation = (token: string) => call(api.GET('/invitations/{token}', { params: { path: { token } } }));
type Invitation = Awaited<ReturnType<typeof loadInvitation>>;
const ROLES: Record<Invitation['role'], MessageKey> = { editor: 'invite.role.editor', member: 'invite.role.member', reader: 'invite.role.reader' };
/** What a link that no longer works says, by its state. */
const ENDED: Record<Exclude<Invitation['state'], 'pending'>, MessageKey> = {
  expired: 'invitation.expired',
  revoked: 'invitation.revoked',
  accepted: 'invitation.accepted',
};

function Intro({ invitation }: { invitation: Invitation }) {
  return (
    <p className="invite-intro" data-testid="invitation-intro">
      {t('invitation.intro', {
        organization: invitation.organizationName ?? t('invite.anOrganization'),
        space: invitation.spaceName,
        role: t(ROLES[invitation.role]),
        email: invitation.email,
      })}
    </p>
  );
}

/** Not signed in, no account for the address yet: a name and a password make it, join, and sign in. */
function CreateAccount({ token, invitation }: { token: string; invitation: Invitation }) {
  const { signIn } = useSession();
  const navigate = useNavigate();
  const { busy, error, run } = useSubmit();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    await run(async () => {
      const answer = await call(
        api.POST('/invitations/{token}/register', { params: { path: { token } }, body: { name: String(form.get('name')), password: String(form.get('password')) } }),
      );
      signIn(answer.session);
      navigate('/', { replace: true });
    });
  }

  return (
    <AuthCard>
      <h2>{t('invitation.title', { space: invitation.spaceName })}</h2>
      <Intro invitation={invitation} />
      <form onSubmit={submit} aria-label={t('invitation.createAccount')}>
        <label>
          {t('invitation.email')}
          <input name="email" type="email" value={invitation.email} readOnly />
        </label>
        <label>
          {t('invitation.name')}
          <input name="name" required maxLength={500} autoComplete="name" />
        </label>
        <label>
          {t('invitation.password')}
          <input name="password" type="password" required minLength={8} maxLength={200} autoComplete="new-password" />
        </label>
        <FormError error={error} />
        <button className="primary" disabled={busy}>
          {t('invitation.createAndJoin')}
        </button>
      </form>
    </AuthCard>
  );
}

/** Signed in: accept, then the invitation's organization becomes the active one and the space opens in the sidebar. */
function Accept({ token, invitation }: { token: string; invitation: Invitation }) {
  const { switched } = useSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const toast = useToast();
  const { busy, error, run } = useSubmit();

  const accept = () =>
    run(async () => {
      await call(api.POST('/invitations/{token}/accept', { params: { path: { token } } }));
      const organizations = await call(api.GET('/user/organizations', { params: { query: { limit: 100 } } }));
      const target = organizationToOpen(organizations, invitation.organizationName);
      if (target !== null) {
        await call(api.PATCH('/user/organizations/active', { body: { organizationId: target } }));
        switched();
      }
      await client.invalidateQueries({ queryKey: keys.spaces });
      toast(t('invite.joined', { space: invitation.spaceName }));
      navigate('/', { replace: true });
    });

  return (
    <div className="page invite-page">
      <h1>{t('invitation.title', { space: invitation.spaceName })}</h1>
      <Intro invitation={invitation} />
      <FormError error={error} />
      <button type="button" className="primary" disabled={busy} onClick={() => void accept()}>
        {t('invitation.accept')}
      </button>
    </div>
  );
}

/**
 * The emailed invitation's page (`/app/invitations/<token>`). A link that no longer works says why
 * (expired, withdrawn, accepted, unknown). Signed in: an Accept button (the server checks the
 * address). Signed out: sign in as the invited address (then Accept), or, when it has no account
 * yet, create one with a name and a password, which joins at once.
 */
export function AcceptInvitationPage() {
  const token = useParams().token ?? '';
  const { signedIn } = useSession();
  const { data: invitation, error } = useQuery({ queryKey: ['invitation', token], queryFn: () => loadInvitation(token), retry: false });

  const problem = error
    ? error instanceof ApiError && (error.status === 404 || error.status === 400)
      ? t('invitation.gone')
      : error.message
    : invitation && invitation.state !== 'pending'
      ? t(ENDED[invitation.state])
      : null;
  if (problem) {
    const message = (
      <p className="form-error" role="alert">
        {problem}
      </p>
    );
    if (signedIn) return <div className="page invite-page">{message}</div>;
    return (
      <AuthCard>
        {message}
        <p>
          <Link to="/login">{t('invitation.signIn')}</Link>
        </p>
      </AuthCard>
    );
  }
  if (!invitation) return <p className="loading">{t('invite.loading')}</p>;
  if (signedIn) return <Accept token={token} invitation={invitation} />;
  if (!invitation.accountExists) return <CreateAccount token={token} invitation={invitation} />;
  // Signing in keeps this page: it then shows the Accept button.
  const intro = (
    <>
      <Intro invitation={invitation} />
      <p>{t('invitation.signInAs', { email: invitation.email })}</p>
    </>
  );
  return <AuthPage intro={intro} />;
}
