import { eq, sql } from 'drizzle-orm';
import type { Config } from '../../../config.js';
import type { OidcRole } from '../../../config/settings.sso.js';
import type { Queryable } from '../../../db/client.js';
import { users } from '../../../db/schema/index.js';
import { AppError } from '../../../platform/errors.js';

/** Single sign-on as configured: issuer, client id and secret all set. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  displayName: string;
  redirectUri: string;
  postLogoutRedirectUri: string;
}

export function oidcSettingsOf(config: Config): OidcSettings | null {
  const { oidcIssuer: issuer, oidcClientId: clientId, oidcClientSecret: clientSecret } = config;
  if (!issuer || !clientId || !clientSecret) return null;
  return {
    issuer,
    clientId,
    clientSecret,
    scopes: config.oidcScopes,
    displayName: config.oidcDisplayName,
    redirectUri: config.oidcRedirectUri,
    postLogoutRedirectUri: config.oidcPostLogoutRedirectUri,
  };
}

export function requireOidc(config: Config): OidcSettings {
  const settings = oidcSettingsOf(config);
  if (!settings) throw new AppError('OIDC_NOT_CONFIGURED', 'single sign-on is not configured on this service (OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET)');
  return settings;
}

/**
 * OIDC_ONLY: password sign-in and registration are off for everyone except operators (by
 * OPERATOR_EMAILS or the account's operator flag), who must still get in when the provider is down.
 * Asked before the password is checked, with the same answer for every non-operator email.
 */
export async function assertPasswordSignIn(db: Queryable, config: Config, rawEmail: string): Promise<void> {
  if (!config.oidcOnly) return;
  const email = rawEmail.trim().toLowerCase();
  if (config.operatorEmails.includes(email)) return;
  const [operator] = await db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${email} and ${eq(users.isOperator, true)}`).limit(1);
  if (operator) return;
  throw new AppError('PASSWORD_SIGN_IN_DISABLED', `password sign-in is off on this service: use "Sign in with ${config.oidcDisplayName}"`);
}

/** The verified email the provider vouches for, or a 403: an unverified one is neither linked nor used. */
export function verifiedEmailOf(claims: Record<string, unknown>): string {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!email || claims.email_verified !== true) {
    throw new AppError('OIDC_EMAIL_UNVERIFIED', 'the identity provider did not vouch for this account’s email (email_verified): it cannot be linked to or used for an account');
  }
  return email;
}

/** A new account: the sign-up mode and OIDC_ALLOWED_DOMAINS decide (linking an existing one is not limited by them). */
export function assertMayCreateAccount(config: Config, email: string): void {
  // A configured organization to join is the operator's standing invitation.
  if (config.signupMode === 'closed' || (config.signupMode === 'invite-only' && config.oidcOrganizationId === null)) {
    throw new AppError('SIGNUP_CLOSED', 'registration is closed on this service; ask an administrator for an account');
  }
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (config.oidcAllowedDomains.length > 0 && !config.oidcAllowedDomains.includes(domain)) {
    throw new AppError('OIDC_DOMAIN_NOT_ALLOWED', 'accounts cannot be created for this email domain on this service');
  }
}

/** The organization role OIDC_ROLE_CLAIM maps to, or null when the claim is unset or maps to nothing. */
export function mappedRoleOf(config: Config, claims: Record<string, unknown>): OidcRole | null {
  if (!config.oidcRoleClaim) return null;
  const value = claims[config.oidcRoleClaim];
  const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
  const roles = values.map((v) => config.oidcRoleMapping[v]).filter((r): r is OidcRole => r !== undefined);
  if (roles.length === 0) return null;
  return roles.includes('admin') ? 'admin' : 'member';
}
