import { bool, custom, httpUrl, Invalid, list, text } from './setting.js';

export type OidcRole = 'admin' | 'member';

/** `OIDC_ROLE_MAPPING`: `claimValue=role` pairs; owners are never made or unmade by a claim. */
function roleMapping(raw: string | undefined): Record<string, OidcRole> {
  const map: Record<string, OidcRole> = {};
  for (const pair of (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [value, role] = pair.split('=').map((s) => s.trim());
    if (!value || (role !== 'admin' && role !== 'member')) throw new Invalid('claimValue=admin|member pairs, comma-separated');
    map[value] = role;
  }
  return map;
}

const ONLY_FLAG = bool('', false);

/** Single sign-on through an OpenID Connect provider (issue 41). */
export const SSO_SETTINGS = {
  OIDC_ISSUER: httpUrl('the OpenID Connect issuer (discovery at `{issuer}/.well-known/openid-configuration`); with the client id and secret, single sign-on is on', null),
  OIDC_CLIENT_ID: text('the client id registered with the provider', null),
  OIDC_CLIENT_SECRET: text('that client\'s secret (it also keys the sealing of sign-ins in flight)', null, { secret: true }),
  OIDC_SCOPES: text('scopes asked for (space-separated; `openid` is always added)', 'openid email profile'),
  OIDC_DISPLAY_NAME: text('the provider\'s name on the web client\'s button: "Sign in with <name>"', 'SSO'),
  OIDC_REDIRECT_URI: httpUrl('the redirect URI registered with the provider: the web client\'s page that completes the sign-in', null, {
    default: '`$PUBLIC_URL/app/auth/oidc/callback`',
  }),
  OIDC_POST_LOGOUT_REDIRECT_URI: httpUrl('where the provider sends the browser after its sign-out (registered with it)', null, { default: '`$PUBLIC_URL/app/`' }),
  OIDC_ALLOWED_DOMAINS: list('comma-separated email domains new accounts may be created for (unset: any); linking to existing accounts is not limited', (d) => d.toLowerCase().replace(/^@/, '')),
  OIDC_ROLE_CLAIM: text('an ID token claim (string or array) that sets the organization role in `OIDC_ORGANIZATION_ID`, through `OIDC_ROLE_MAPPING`', null),
  OIDC_ROLE_MAPPING: custom('claim values to roles: `admins=admin,staff=member`; a user none maps keeps their role (new ones join as member)', '—', roleMapping),
  OIDC_ORGANIZATION_ID: custom('the organization new single sign-on users join (as member, or the mapped role); unset: each gets an organization of their own', '—', (raw) => {
    if (raw === undefined) return null;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Invalid('a positive integer');
    return n;
  }),
  // Without a provider, OIDC_ONLY would lock out everyone but the operators: refused at start.
  OIDC_ONLY: custom('turn password sign-in and registration off for everyone except operators (`OPERATOR_EMAILS`); needs the issuer, client id and secret', 'false', (raw, env) => {
    const on = ONLY_FLAG.parse(raw, env);
    if (on && !(env.OIDC_ISSUER?.trim() && env.OIDC_CLIENT_ID?.trim() && env.OIDC_CLIENT_SECRET?.trim())) {
      throw new Invalid('false unless OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set');
    }
    return on;
  }),
};
