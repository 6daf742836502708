import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { SecretBox } from './secrets.js';

const KEY = randomBytes(32).toString('base64');

describe('SecretBox', () => {
  it('round-trips a secret bound to its context, and refuses another context or a tampered value', () => {
    const box = SecretBox.fromKey(KEY);
    const stored = box.encrypt('sk-live-123456', 'llm:1');
    expect(stored).not.toContain('sk-live');
    expect(stored).toMatch(/^v1\./);
    expect(box.decrypt(stored, 'llm:1')).toBe('sk-live-123456');
    expect(() => box.decrypt(stored, 'llm:2')).toThrow();
    const parts = stored.split('.');
    parts[3] = Buffer.from('x' + Buffer.from(parts[3]!, 'base64url').toString('latin1')).toString('base64url');
    expect(() => box.decrypt(parts.join('.'), 'llm:1')).toThrow();
    expect(() => SecretBox.fromKey(randomBytes(32).toString('base64')).decrypt(stored, 'llm:1')).toThrow();
    // A fresh nonce each time: the same secret never encrypts twice to the same text.
    expect(box.encrypt('sk-live-123456', 'llm:1')).not.toBe(stored);
  });

  it('on the embedded database generates one key in DATA_DIR with 0600 and keeps it across starts', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'secrets-'));
    const first = SecretBox.forConfig({ secretsKey: null, databaseUrl: null, dataDir });
    const file = path.join(dataDir, 'secrets.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
    const stored = first.encrypt('token', 'x');
    const second = SecretBox.forConfig({ secretsKey: null, databaseUrl: null, dataDir });
    expect(second.decrypt(stored, 'x')).toBe('token');
  });

  it('on PostgreSQL without SECRETS_KEY refuses to save a secret with 400 SECRETS_KEY_MISSING', () => {
    const box = SecretBox.forConfig({ secretsKey: null, databaseUrl: 'postgres://db/x', dataDir: './data' });
    expect(box.available).toBe(false);
    expect(() => box.encrypt('k', 'c')).toThrow(expect.objectContaining({ code: 'SECRETS_KEY_MISSING', status: 400 }));
    expect(SecretBox.forConfig({ secretsKey: KEY, databaseUrl: 'postgres://db/x', dataDir: './data' }).available).toBe(true);
  });

  it('refuses a SECRETS_KEY that is not base64 of 32 bytes at start', () => {
    expect(() => loadConfig({ SECRETS_KEY: 'short' })).toThrow(/SECRETS_KEY/);
    expect(() => loadConfig({ SECRETS_KEY: randomBytes(16).toString('base64') })).toThrow(/SECRETS_KEY/);
    expect(loadConfig({ SECRETS_KEY: KEY }).secretsKey).toBe(KEY);
  });

  it('reads OUTBOUND_ALLOWED_HOSTS with WEBHOOK_ALLOWED_HOSTS as an alias', () => {
    const config = loadConfig({ OUTBOUND_ALLOWED_HOSTS: 'llm.local, [::1]', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    expect(config.outboundAllowedHosts).toEqual(['llm.local', '::1', '127.0.0.1']);
    expect(loadConfig({ WEBHOOK_ALLOWED_HOSTS: 'Hooks.Local' }).outboundAllowedHosts).toEqual(['hooks.local']);
  });
});
