import { api, call } from '../api/client';

/** Set while the session came from the identity provider: signing out then ends the provider's session too. */
export const SIGNED_IN_WITH_OIDC = 'workboard.oidc.signedIn';

/**
 * Signs out here; after a single sign-on, through POST /auth/oidc/logout, which also names the
 * provider's end-session page, where the browser goes next.
 */
export async function signOutHereAndAtProvider(): Promise<void> {
  if (!localStorage.getItem(SIGNED_IN_WITH_OIDC)) {
    await call(api.POST('/auth/logout'));
    return;
  }
  localStorage.removeItem(SIGNED_IN_WITH_OIDC);
  const { endSessionUrl } = await call(api.POST('/auth/oidc/logout'));
  if (endSessionUrl) window.location.assign(endSessionUrl);
}
