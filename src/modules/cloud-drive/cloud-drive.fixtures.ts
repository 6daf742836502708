import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { Config } from '../../config.js';
import type { TestKit, TestUser } from '../../test/app.js';
import { FakeDrive } from '../../test/fakes/drive.js';

// Test-only helpers for the cloud-drive tests (no production code imports this).

export const APP_URL = 'https://app.example.test';

/** A fake provider for the file's tests, and the config overrides that point the service at it. */
export function useFakeDrive(extra: Partial<Config> = {}): { fake: FakeDrive; overrides: Partial<Config> } {
  const fake = new FakeDrive();
  beforeAll(() => fake.start());
  afterAll(() => fake.stop());
  // Getters: the fake's port is known only once it listens, before the app is built.
  const overrides = {
    cloudDriveClientId: fake.clientId,
    cloudDriveClientSecret: fake.clientSecret,
    get cloudDriveAuthUrl() {
      return `${fake.url}/auth`;
    },
    get cloudDriveTokenUrl() {
      return `${fake.url}/token`;
    },
    get cloudDriveRevokeUrl() {
      return `${fake.url}/revoke`;
    },
    get cloudDriveApiUrl() {
      return fake.url;
    },
    outboundAllowedHosts: ['127.0.0.1'],
    appUrl: APP_URL,
    // PostgreSQL has no generated key: stored secrets need one set (PGlite's memory:// makes its own).
    secretsKey: randomBytes(32).toString('base64'),
    ...extra,
  } as Partial<Config>;
  return { fake, overrides };
}

/** Authorization codes the fake handed out through connect(). */
export const codes: string[] = [];

/** Every answer a test saw, to look for tokens in afterwards. */
export const seen: string[] = [];
export function record(res: LightMyRequestResponse): LightMyRequestResponse {
  seen.push(JSON.stringify(res.headers), res.body.length > 100_000 ? '' : res.body);
  return res;
}

/** The browser's round trip: authorization URL, consent at the fake, the callback's redirect. */
export async function connect(t: TestKit, fake: FakeDrive, user: TestUser, account = user.email): Promise<URL> {
  const start = record(await t.as(user).get('/integrations/cloud-drive/authorization-url'));
  expect(start.statusCode).toBe(200);
  const back = fake.consent(start.json().url, account);
  codes.push(back.get('code')!);
  const callback = record(await t.as(null).get(`/integrations/cloud-drive/callback?${back}`));
  expect(callback.statusCode).toBe(302);
  const location = new URL(callback.headers.location as string);
  expect(location.searchParams.get('cloudDrive')).toBe('connected');
  return location;
}
