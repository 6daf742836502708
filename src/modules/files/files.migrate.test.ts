import { spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { LocalBackend } from '../../platform/storage/local.js';
import { useStorageTestApp } from '../../test/storage.js';

// The app serves from the bucket; the local directory of its config is the DATA_DIR being moved.
const t = useStorageTestApp('s3');
// Enough for a kill half-way between two progress lines (one per 100 files) and a resume.
const FILES = 500;

/** Runs `npm run files:migrate -- --to <to>` as its own process; `killAfter` kills it once that many files were handled. */
function migrate(killAfter?: number, to: 's3' | 'local' = 's3', filesDir = t.config.filesDir): Promise<{ code: number | null; output: string }> {
  const s3 = t.config.s3;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/files-migrate.ts', '--to', to], {
    env: {
      ...process.env,
      FILES_DIR: filesDir,
      S3_ENDPOINT: s3.endpoint!,
      S3_REGION: s3.region,
      S3_BUCKET: s3.bucket,
      S3_ACCESS_KEY_ID: s3.accessKeyId!,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey!,
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: s3.prefix,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listen = (chunk: Buffer) => {
    output += chunk.toString();
    const handled = [...output.matchAll(/^(\d+)\/\d+ files/gm)].map((m) => Number(m[1]));
    if (killAfter !== undefined && handled.some((n) => n >= killAfter)) child.kill('SIGKILL');
  };
  child.stdout.on('data', listen);
  child.stderr.on('data', listen);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe('npm run files:migrate -- --to s3', () => {
  it(`moves a DATA_DIR of ${FILES} files to the bucket, killed half-way and resumed; every file then downloads byte-identical`, { timeout: 600_000 }, async () => {
    const owner = await t.org();
    const local = new LocalBackend(t.config.filesDir);
    const seeded: { key: string; data: Buffer }[] = [];
    for (let i = 0; i < FILES; i++) {
      const data = randomBytes(1 + ((i * 7919) % 20_000));
      const key = randomUUID();
      await local.write(key, Readable.from([data]));
      seeded.push({ key, data });
    }
    for (let i = 0; i < FILES; i += 250) {
      const rows = seeded.slice(i, i + 250).map(
        (s) => sql`(${owner.organizationId}, ${owner.id}, ${s.key}::uuid, 'project-doc-file', 'f.bin', ${s.data.length}, 'application/octet-stream')`,
      );
      await t.sql(sql`insert into files (organization_id, uploader_id, key, purpose, name, size, mime_type) values ${sql.join(rows, sql`, `)}`);
    }

    const first = await migrate(200);
    expect(first.code).not.toBe(0);
    let inBucket = 0;
    for await (const _ of t.app.files.backend.list()) inBucket++;
    expect(inBucket).toBeGreaterThanOrEqual(200);
    expect(inBucket).toBeLessThan(FILES);

    const second = await migrate();
    expect(second.code, second.output).toBe(0);
    const done = /^done: (\d+)\/(\d+) files: (\d+) copied, (\d+) already there, 0 failed/m.exec(second.output);
    expect(done, second.output).not.toBeNull();
    expect(Number(done![1])).toBe(FILES);
    expect(Number(done![4])).toBeGreaterThanOrEqual(200);
    expect(Number(done![3]) + Number(done![4])).toBe(FILES);
    expect(second.output).toMatch(/files\/s, [\d.]+ MB\/s/);

    for (const { key, data } of seeded) {
      const res = await t.as(owner).get(`/files/${key}`);
      expect(res.statusCode).toBe(200);
      if (!res.rawPayload.equals(data)) throw new Error(`${key} differs: sha256 ${createHash('sha256').update(res.rawPayload).digest('hex')}`);
    }
    // The source is left as it was.
    let left = 0;
    for await (const _ of local.list()) left++;
    expect(left).toBe(FILES);

    // And back, into an empty directory: every file arrives byte-identical.
    const back = path.join(t.config.filesDir, '..', `back-${randomUUID()}`);
    const returned = await migrate(undefined, 'local', back);
    expect(returned.output).toMatch(new RegExp(`^done: ${FILES}/${FILES} files: ${FILES} copied, 0 already there, 0 failed`, 'm'));
    const copy = new LocalBackend(back);
    for (const { key, data } of seeded) {
      const chunks: Buffer[] = [];
      for await (const chunk of (await copy.read(key))!) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(data)).toBe(true);
    }
  });
});
