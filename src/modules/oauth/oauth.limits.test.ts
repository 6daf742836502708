import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { runJob } from '../../platform/jobs.js';
import { REDIRECT_URL, useOAuthApp } from './oauth.fixtures.js';

// Open registration is where an anonymous caller can make the server store something: limited per
// address like sign-in, and what nobody allowed is purged.
const { kit, base } = useOAuthApp({ authRateLimitPerMinute: 3, jobsEnabled: false });

const register = (name: string) =>
  fetch(`${base()}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'none' }),
  });

describe('OAuth registration limits', () => {
  it('answers 429 with Retry-After past the sign-in limit of an address', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await register(`Flood ${i}`));
    expect(answers.slice(0, 3).map((r) => r.status)).toEqual([201, 201, 201]);
    expect(answers[3]!.status).toBe(429);
    expect(answers[3]!.headers.get('retry-after')).toBeTruthy();
  });

  it('purges clients nobody allowed within 30 days, and expired codes and tokens', async () => {
    await kit.sql(sql`insert into oauth_records (model, id, payload, created_at) values ('Client', 'stale-client-x', '{}', now() - interval '31 days')`);
    await kit.sql(sql`insert into oauth_records (model, id, payload, expires_at) values ('AccessToken', 'expired-token-x', '{}', now() - interval '1 second')`);
    await runJob(kit.app, 'oauth.purge', { force: true });
    expect(await kit.sql(sql`select id from oauth_records where id in ('stale-client-x', 'expired-token-x')`)).toEqual([]);
  });
});
