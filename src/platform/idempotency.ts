import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import { queryRows, type Db } from '../db/client.js';
import { credentialOf } from './auth.js';
import { sha256 } from './crypto.js';
import { AppError } from './errors.js';
import { registerJob } from './jobs.js';

const MAX_KEY_LENGTH = 255;
/** A first request still marked running after this long died with its instance: a retry may take the key over. */
const ABANDONED_AFTER_MS = 5 * 60_000;
/** Larger answers are not kept (the key is released): nothing the API answers to a POST comes near. */
const MAX_KEPT_BYTES = 4 * 1024 * 1024;
/** Headers a replay repeats; the others (request id, rate-limit counters, ETag) belong to the replay itself. */
const KEPT_HEADERS = ['content-type', 'location', 'link', 'x-total-count', 'content-disposition'];
/**
 * 4xx answers the same request may not get again (a credential fixed, a concurrent change gone, a
 * rate limit passed): they are not kept, so a retry with the key runs again. Every other 2xx–4xx
 * answer is what the request deterministically gets, so it is kept; 5xx never is.
 */
const TRANSIENT = new Set([401, 408, 409, 423, 425, 429]);

interface Claim {
  credentialHash: string;
  key: string;
  fingerprint: string;
  /** Encrypts the kept answer: derived from the raw credential, which the database never holds. */
  secret: Buffer;
  settled: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: Claim | null;
  }
}

/** JSON with sorted keys: the same body sent with its fields in another order is the same request. */
function canonical(value: unknown): string {
  if (Buffer.isBuffer(value)) return `b64:${value.toString('base64')}`;
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    return `{${Object.keys(object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(object[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function seal(secret: Buffer, fingerprint: string, plain: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secret, iv).setAAD(Buffer.from(fingerprint));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

function open(secret: Buffer, fingerprint: string, sealed: string): Buffer {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', secret, bytes.subarray(0, 12)).setAAD(Buffer.from(fingerprint));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
}

interface Kept {
  headers: Record<string, string>;
  body: string;
}

function keyOf(request: FastifyRequest): string | null {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return null;
  const key = (Array.isArray(raw) ? raw.join(', ') : raw).trim();
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new AppError('VALIDATION_FAILED', `Idempotency-Key must have 1 to ${MAX_KEY_LENGTH} characters`, [
      { path: '/headers/idempotency-key', message: `must have 1 to ${MAX_KEY_LENGTH} characters` },
    ]);
  }
  return key;
}

/**
 * Takes the key for this request: new, expired, or left running by a first attempt that died with
 * the same request. Answers false when the key is held (a kept answer, or a request still running).
 */
async function take(db: Db, claim: Claim, ttlHours: number): Promise<boolean> {
  const rows = await queryRows(
    db,
    sql`insert into idempotency_keys as k (credential_hash, key, fingerprint) values (${claim.credentialHash}, ${claim.key}, ${claim.fingerprint})
        on conflict (credential_hash, key) do update set fingerprint = excluded.fingerprint, status = null, response = null, created_at = now()
        where k.created_at < now() - make_interval(hours => ${ttlHours})
           or (k.status is null and k.fingerprint = excluded.fingerprint and k.created_at < now() - make_interval(secs => ${ABANDONED_AFTER_MS / 1000}))
        returning 1 as taken`,
  );
  return rows.length > 0;
}

async function held(db: Db, claim: Claim, ttlHours: number) {
  const [row] = await queryRows<{ fingerprint: string; status: number | null; response: string | null }>(
    db,
    sql`select fingerprint, status, response from idempotency_keys
        where credential_hash = ${claim.credentialHash} and key = ${claim.key} and created_at >= now() - make_interval(hours => ${ttlHours})`,
  );
  return row;
}

const release = (db: Db, claim: Claim) =>
  db.execute(sql`delete from idempotency_keys where credential_hash = ${claim.credentialHash} and key = ${claim.key} and status is null`);

/**
 * `Idempotency-Key` on POST: a client that retries a request it got no answer to gets the first
 * answer again (`Idempotent-Replayed: true`) instead of a second write. Keys are scoped to the
 * credential and kept `idempotencyTtlHours` in the database, so a retry may reach any instance.
 * Requests without a credential (sign-up, login, callbacks) and multipart uploads (their body
 * streams to storage inside the handler, so it cannot be compared first) run as if no key was sent.
 */
export function registerIdempotency(app: FastifyInstance, config: Config): void {
  const db = app.database.db;
  const ttlHours = config.idempotencyTtlHours;
  app.decorateRequest('idempotency', null);

  // After authentication and body validation: only a valid request of a known caller takes a key.
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'POST') return;
    const key = keyOf(request);
    const credential = credentialOf(request);
    if (key === null || !request.actor || !credential || request.isMultipart()) return;
    const claim: Claim = {
      credentialHash: sha256(credential),
      key,
      fingerprint: sha256(`${request.method} ${request.url}\n${canonical(request.body)}`),
      secret: createHmac('sha256', credential).update(`idempotency-key\0${key}`).digest(),
      settled: false,
    };
    // A first request that fails with 5xx releases the key between our insert and our read: try again.
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await take(db, claim, ttlHours)) {
        request.idempotency = claim;
        return;
      }
      const row = await held(db, claim, ttlHours);
      if (!row) continue;
      if (row.fingerprint !== claim.fingerprint) {
        throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with another request (method, path or body); use a new key');
      }
      if (row.status === null || row.response === null) break;
      const kept = JSON.parse(open(claim.secret, claim.fingerprint, row.response).toString('utf8')) as Kept;
      return reply.code(row.status).headers(kept.headers).header('idempotent-replayed', 'true').send(Buffer.from(kept.body, 'base64'));
    }
    reply.header('retry-after', '1');
    throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'a request with this Idempotency-Key is still running; retry once it has answered');
  });

  // Before compression (registered earlier), so the answer is kept as the handler gave it.
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim || claim.settled) return payload;
    claim.settled = true;
    const status = reply.statusCode;
    // No payload (a 204) is kept as an empty body; a stream cannot be kept.
    const bytes = payload == null ? Buffer.alloc(0) : typeof payload === 'string' ? Buffer.from(payload) : Buffer.isBuffer(payload) ? payload : null;
    try {
      if (status < 200 || status >= 500 || TRANSIENT.has(status) || !bytes || bytes.length > MAX_KEPT_BYTES) {
        await release(db, claim);
        return payload;
      }
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      const kept: Kept = { headers, body: bytes.toString('base64') };
      const response = seal(claim.secret, claim.fingerprint, Buffer.from(JSON.stringify(kept)));
      await db.execute(
        sql`update idempotency_keys set status = ${status}, response = ${response}
            where credential_hash = ${claim.credentialHash} and key = ${claim.key} and fingerprint = ${claim.fingerprint} and status is null`,
      );
    } catch (err) {
      // The answer still goes out; the key stays marked running until it counts as abandoned.
      request.log.error({ err }, 'idempotency: the answer could not be kept');
    }
    return payload;
  });

  // A reply that never passed onSend (a hijacked or failed stream) must not hold its key.
  app.addHook('onResponse', async (request) => {
    const claim = request.idempotency;
    if (!claim || claim.settled) return;
    claim.settled = true;
    await release(db, claim).catch((err: unknown) => request.log.error({ err }, 'idempotency: the key could not be released'));
  });

  registerJob(app, {
    name: 'idempotency.purge',
    intervalMs: 15 * 60_000,
    exclusive: true,
    run: async (a) => void (await a.database.db.execute(sql`delete from idempotency_keys where created_at < now() - make_interval(hours => ${ttlHours})`)),
  });
}
