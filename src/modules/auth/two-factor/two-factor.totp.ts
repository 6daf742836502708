import { Secret, TOTP } from 'otpauth';

// two-factor.service.ts imports this with import() where it handles a TOTP secret or code, so that
// otpauth is not loaded at start (issue 42); recovery codes need no otpauth (two-factor.codes.ts).

// RFC 6238 defaults every authenticator app understands: SHA-1, 6 digits, 30-second steps.
const PERIOD = 30;
const DIGITS = 6;
// One step either side: a phone clock 30 seconds off still signs in.
const WINDOW = 1;

const totp = (secret: string, label = '', issuer = '') =>
  new TOTP({ issuer, label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: DIGITS, period: PERIOD });

/** A fresh 160-bit secret in base32 (RFC 4226 recommends 160 bits). */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

export const otpauthUri = (secret: string, account: string, issuer: string): string => totp(secret, account, issuer).toString();

/** The time step the code belongs to (within the window), or null when it matches none. */
export function stepOf(secret: string, code: string, now = Date.now()): number | null {
  const delta = totp(secret).validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
}

/** The code of a step, for tests. */
export const codeAt = (secret: string, timestamp: number): string => totp(secret).generate({ timestamp });
