import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../config.js';
import { effectiveConfiguration } from '../../../config/report.js';

const PROVIDER = { OIDC_ISSUER: 'https://id.example.test', OIDC_CLIENT_ID: 'wb', OIDC_CLIENT_SECRET: 'super-secret-value' };
const refusal = (env: NodeJS.ProcessEnv) => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.lines;
    throw err;
  }
  return [];
};

describe('single sign-on settings', () => {
  it('reads the OIDC_* variables, with defaults on the web client this service serves', () => {
    const config = loadConfig({
      ...PROVIDER,
      PUBLIC_URL: 'https://wb.example.test',
      OIDC_ALLOWED_DOMAINS: '@Corp.test, other.test',
      OIDC_ROLE_CLAIM: 'groups',
      OIDC_ROLE_MAPPING: 'wb-admins=admin, staff=member',
      OIDC_ORGANIZATION_ID: '7',
      OIDC_ONLY: 'true',
    });
    expect(config).toMatchObject({
      oidcIssuer: PROVIDER.OIDC_ISSUER,
      oidcScopes: 'openid email profile',
      oidcDisplayName: 'SSO',
      oidcRedirectUri: 'https://wb.example.test/app/auth/oidc/callback',
      oidcPostLogoutRedirectUri: 'https://wb.example.test/app/',
      oidcAllowedDomains: ['corp.test', 'other.test'],
      oidcRoleMapping: { 'wb-admins': 'admin', staff: 'member' },
      oidcOrganizationId: 7,
      oidcOnly: true,
    });
  });

  it('masks the client secret in the effective configuration', () => {
    const lines = effectiveConfiguration(PROVIDER, loadConfig(PROVIDER));
    expect(lines.find((l) => l.startsWith('OIDC_CLIENT_SECRET'))).not.toContain('super-secret-value');
    expect(lines.join('\n')).not.toContain('super-secret-value');
  });

  it('refuses OIDC_ONLY without a provider, and a role mapping to anything but admin or member', () => {
    expect(refusal({ OIDC_ONLY: 'true' })).toEqual([expect.stringMatching(/^OIDC_ONLY must be false unless OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set/)]);
    expect(refusal({ ...PROVIDER, OIDC_ROLE_MAPPING: 'boss=owner' })).toEqual([expect.stringMatching(/^OIDC_ROLE_MAPPING must be claimValue=admin\|member pairs/)]);
    expect(refusal({ ...PROVIDER, OIDC_ORGANIZATION_ID: '0' })).toEqual([expect.stringMatching(/^OIDC_ORGANIZATION_ID must be a positive integer/)]);
  });
});
