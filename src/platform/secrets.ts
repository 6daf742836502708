import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppError } from './errors.js';

/**
 * Secrets the service must use again in plain text (an LLM provider's API key, OAuth tokens, a
 * bot's token) are stored encrypted with AES-256-GCM under one key, SECRETS_KEY (base64 of 32
 * bytes). Each value gets a fresh 96-bit nonce; the authentication tag makes a tampered value fail
 * to decrypt instead of decrypting to garbage. A `context` string (say `llm:42` for organization
 * 42's LLM key) is bound as additional data, so a ciphertext copied into another row or
 * organization does not decrypt there.
 *
 * Where the key comes from:
 * - SECRETS_KEY when set (several instances on one PostgreSQL must all have the same one);
 * - on the embedded database without it, a key generated once and kept in DATA_DIR/secrets.key
 *   (mode 0600), so a single-machine install works out of the box; with `memory://` a key that
 *   lives as long as the process, like the data it protects;
 * - on PostgreSQL without it, nothing: saving a secret answers 400 SECRETS_KEY_MISSING (a key kept
 *   on one instance's disk would leave the others unable to read what it wrote).
 */

const VERSION = 'v1';
const KEY_FILE = 'secrets.key';

export class SecretBox {
  private constructor(private readonly key: Buffer | null) {}

  /** Whether secrets can be saved and read. */
  get available(): boolean {
    return this.key !== null;
  }

  static fromKey(base64Key: string | null): SecretBox {
    if (base64Key === null) return new SecretBox(null);
    const key = Buffer.from(base64Key, 'base64');
    if (key.length !== 32) throw new Error('SECRETS_KEY must be base64 of 32 bytes');
    return new SecretBox(key);
  }

  /** The box for this configuration (see the module comment for where the key comes from). */
  static forConfig(config: { secretsKey: string | null; databaseUrl: string | null; dataDir: string }): SecretBox {
    if (config.secretsKey) return SecretBox.fromKey(config.secretsKey);
    if (config.databaseUrl) return new SecretBox(null);
    if (config.dataDir.startsWith('memory://')) return new SecretBox(randomBytes(32));
    return new SecretBox(embeddedKey(config.dataDir));
  }

  /** A key for another use, derived from this one (HKDF-SHA256), so neither use can stand in for the other; null without a key. */
  derive(purpose: string): Buffer | null {
    return this.key ? Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `workboard ${purpose}`, 32)) : null;
  }

  private requireKey(): Buffer {
    if (!this.key) {
      throw new AppError(
        'SECRETS_KEY_MISSING',
        'this service cannot store secrets: set SECRETS_KEY (base64 of 32 random bytes, the same on every instance) and restart',
      );
    }
    return this.key;
  }

  /** `v1.<nonce>.<tag>.<ciphertext>`, each part base64url. */
  encrypt(plaintext: string, context: string): string {
    const key = this.requireKey();
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, nonce, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /** The plain text, or an error when the key, the context or the value is wrong. */
  decrypt(stored: string, context: string): string {
    const key = this.requireKey();
    const [version, nonce, tag, body] = stored.split('.');
    if (version !== VERSION || !nonce || !tag || body === undefined) throw new Error('not a stored secret');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** The embedded install's key: read from DATA_DIR, or generated there once (0600, never overwritten). */
function embeddedKey(dataDir: string): Buffer {
  const file = path.join(dataDir, KEY_FILE);
  mkdirSync(dataDir, { recursive: true });
  try {
    // `wx`: two processes starting together cannot both write a key; the loser reads the winner's.
    writeFileSync(file, randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold base64 of 32 bytes; restore it or set SECRETS_KEY`);
  return key;
}

/** The last four characters of a secret, for reads that must show which key is set without showing it. */
export const last4 = (secret: string): string => (secret.length >= 8 ? secret.slice(-4) : '');
