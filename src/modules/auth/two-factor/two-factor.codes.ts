import { createHash, randomBytes } from 'node:crypto';

// 32 characters without look-alikes (no i, l, 1; an `o` typed is read as 0): 16 of them, 5 bits
// each, make 80 random bits a code.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz023456789';
export function newRecoveryCode(): string {
  const chars = [...randomBytes(16)].map((b) => ALPHABET[b % 32]!);
  return [0, 4, 8, 12].map((i) => chars.slice(i, i + 4).join('')).join('-');
}

/** What is stored and compared: case, spaces and dashes do not matter to the one typing it. */
export const recoveryCodeHash = (code: string): string =>
  createHash('sha256').update(code.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0')).digest('hex');

export const looksLikeTotp = (code: string): boolean => /^\d{6}$/.test(code.replace(/\s/g, ''));
