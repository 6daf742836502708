import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const KEY_LENGTH = 32;

/**
 * scrypt from Node's own crypto (no native build step). The cost is stored in the hash, so it can be
 * raised later without invalidating existing passwords. log2N 17 is OWASP's recommendation.
 */
export async function hashPassword(password: string, log2N = 17): Promise<string> {
  const N = 2 ** log2N;
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { N, r: 8, p: 1, maxmem: 256 * N * 8 });
  return `scrypt$${log2N}$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, log2N, r, p, salt, expected] = parts;
  const N = 2 ** Number(log2N);
  const expectedKey = Buffer.from(expected!, 'base64url');
  const key = await scrypt(password, Buffer.from(salt!, 'base64url'), expectedKey.length, {
    N,
    r: Number(r),
    p: Number(p),
    maxmem: 256 * N * Number(r),
  });
  return key.length === expectedKey.length && timingSafeEqual(key, expectedKey);
}

export const SESSION_PREFIX = 'wms_';
export const API_TOKEN_PREFIX = 'wmt_';

/** A 256-bit random credential with a recognisable prefix (so leaked ones can be spotted by scanners). */
export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
