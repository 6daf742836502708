import { SessionsSection } from './SessionsSection';
import { TwoFactorSection } from './TwoFactorSection';

/** Sign-in security of the caller's own account: two-factor sign-in and open sessions. */
export function SecurityPanel() {
  return (
    <>
      <TwoFactorSection />
      <SessionsSection />
    </>
  );
}
