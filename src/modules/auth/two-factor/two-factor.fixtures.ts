import { expect } from 'vitest';
import { PASSWORD, type TestKit, type TestUser } from '../../../test/app.js';
import { codeAt } from './two-factor.totp.js';

const STEP_MS = 30_000;

/**
 * Codes of the current time step and the next (inside the window). Each step's code is accepted
 * once, so a test has two TOTP codes to spend and uses recovery codes past that.
 */
export const codeNow = (secret: string) => codeAt(secret, Date.now());
export const codeNext = (secret: string) => codeAt(secret, Date.now() + STEP_MS);

export interface Enrolled {
  secret: string;
  recoveryCodes: string[];
  /** The code that confirmed enrolment: spent, whatever the clock says now. */
  confirmedWith: string;
}

/** Turns two-factor sign-in on for the user, spending the current step's code. */
export async function enrol(kit: TestKit, user: TestUser): Promise<Enrolled> {
  const started = await kit.as(user).post('/user/two-factor/enrolment');
  expect(started.statusCode, started.body).toBe(201);
  const { secret } = started.json() as { secret: string };
  const confirmedWith = codeNow(secret);
  const confirmed = await kit.as(user).post('/user/two-factor/enrolment/confirm', { code: confirmedWith });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return { secret, recoveryCodes: (confirmed.json() as { recoveryCodes: string[] }).recoveryCodes, confirmedWith };
}

/** The password step: answers the challenge of a user with two-factor sign-in. */
export async function challenge(kit: TestKit, user: TestUser, password = PASSWORD): Promise<string> {
  const res = await kit.as(null).post('/auth/login', { email: user.email, password });
  expect(res.statusCode, res.body).toBe(202);
  return (res.json() as { challenge: string }).challenge;
}

export const answer = (kit: TestKit, challengeToken: string, code: string) => kit.as(null).post('/auth/login/two-factor', { challenge: challengeToken, code });

/** The user as seen through a session opened by a finished sign-in. */
export const withSession = (user: TestUser, session: string): TestUser => ({ ...user, session, headers: { 'service-session': session } });
