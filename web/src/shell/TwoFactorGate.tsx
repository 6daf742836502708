import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { TwoFactorSection, twoFactorQuery } from '../settings/TwoFactorSection';
import { PasskeysSection } from '../settings/PasskeysSection';
import { useSession } from './session';
import '../settings/settings.css';
import { t } from '../i18n';

/**
 * While the organization requires two-factor sign-in and the caller has not enrolled, the API
 * answers nothing but enrolment (403 TWO_FACTOR_ENROLMENT_REQUIRED): show only that (an authenticator
 * app, or a passkey), then the app.
 */
export function TwoFactorGate({ children }: { children: ReactNode }) {
  const { data, isPending } = useQuery(twoFactorQuery);
  const { signOut } = useSession();
  // Asked first, so that a member held to enrolment does not see the app's pages fail one by one.
  if (isPending) return <p className="loading">{t('common.loading')}</p>;
  if (!data?.enrolmentRequired) return children;
  return (
    <main className="auth">
      <div className="auth-card">
        <h1 className="brand">Workboard</h1>
        <TwoFactorSection />
        <PasskeysSection />
        <button type="button" className="ghost" onClick={() => void signOut()}>
          {t('shell.signOut')}
        </button>
      </div>
    </main>
  );
}
