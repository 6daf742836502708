import { PasskeysSection } from './PasskeysSection';
import { SessionsSection } from './SessionsSection';
import { TwoFactorSection } from './TwoFactorSection';

/** Sign-in security of the caller's own account: two-factor sign-in, passkeys and open sessions. */
export function SecurityPanel() {
  return (
    <>
      <TwoFactorSection />
      <PasskeysSection />
      <SessionsSection />
    </>
  );
}
