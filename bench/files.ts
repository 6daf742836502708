import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeS3 } from '../src/test/fake-s3.js';
import { call } from './seed.js';
import { startServer, type RunningServer } from './server.js';

/**
 * F: a 200 MB upload and its download on the S3 backend (a local S3-compatible server in this
 * process), with the service's RSS sampled every 20 ms. Streaming both ways means the peak stays
 * within a few multipart parts of idle, whatever the file's size. Also checks that the download is
 * byte-identical (SHA-256) and that `Range: bytes=100-199` answers exactly those bytes.
 */
export interface FilesResult {
  megabytes: number;
  idleRssMiB: number;
  uploadPeakRssMiB: number;
  downloadPeakRssMiB: number;
  uploadMBps: number;
  downloadMBps: number;
  identical: boolean;
  rangeExact: boolean;
}

const MB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** Byte `i` of the generated file: cheap to make on the fly and to check at any offset. */
const byteAt = (i: number) => (i * 2654435761 + (i >>> 13)) & 0xff;

function chunkAt(offset: number, length: number): Buffer {
  const b = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) b[i] = byteAt(offset + i);
  return b;
}

/** Peak RSS of the server while `work` runs. */
async function peakDuring<T>(server: RunningServer, work: () => Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = server.rssMiB();
  const timer = setInterval(() => (peak = Math.max(peak, server.rssMiB())), 20);
  try {
    const value = await work();
    return { value, peak: Math.max(peak, server.rssMiB()) };
  } finally {
    clearInterval(timer);
  }
}

/** Streams a generated file of `size` bytes as one multipart part, with backpressure, hashing what it sends. */
function upload(url: string, session: string, size: number): Promise<{ link: string; sha256: string }> {
  const boundary = `----bench-${Date.now()}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files[]"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const hash = createHash('sha256');
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + size + tail.length), 'service-session': session },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => (res.statusCode === 201 ? resolve({ link: JSON.parse(text)[0].link, sha256: hash.digest('hex') }) : reject(new Error(`upload: ${res.statusCode} ${text}`))));
    });
    req.write(head);
    let offset = 0;
    const pump = () => {
      while (offset < size) {
        const chunk = chunkAt(offset, Math.min(CHUNK, size - offset));
        offset += chunk.length;
        hash.update(chunk);
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
}

async function download(url: string, session: string, headers: Record<string, string> = {}): Promise<{ status: number; sha256: string; bytes: Buffer | null; size: number }> {
  const res = await fetch(url, { headers: { 'service-session': session, ...headers } });
  const hash = createHash('sha256');
  let size = 0;
  const kept: Buffer[] = [];
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    size += chunk.length;
    if (size <= 1024) kept.push(Buffer.from(chunk));
  }
  return { status: res.status, sha256: hash.digest('hex'), bytes: size <= 1024 ? Buffer.concat(kept) : null, size };
}

export async function benchFiles(env: Record<string, string>, megabytes = 200): Promise<FilesResult> {
  const s3 = new FakeS3();
  await s3.start();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'workboard-bench-files-'));
  const settings = s3.settings('bench/');
  const server = await startServer(
    {
      ...env,
      ...(env.DATABASE_URL ? {} : { DATA_DIR: dataDir }),
      FILE_STORAGE: 's3',
      S3_ENDPOINT: settings.endpoint!,
      S3_BUCKET: settings.bucket,
      S3_ACCESS_KEY_ID: settings.accessKeyId!,
      S3_SECRET_ACCESS_KEY: settings.secretAccessKey!,
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: settings.prefix,
      FILE_LIMIT_BYTES: String((megabytes + 10) * MB),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    { cpuProf: null },
  );
  try {
    const email = `files-${Date.now()}@bench.test`;
    const { session } = await call(server.url, null, 'POST', '/auth/register', { email, password: 'bench password 123', name: 'Bench' });
    const space = await call(server.url, session, 'POST', '/spaces', { name: 'Files' });
    const project = await call(server.url, session, 'POST', '/projects', { name: 'Files', spaceId: space.id });
    const target = `${server.url}/projects/${project.id}/documentation/files`;
    // Warm-up: the SDK and the upload path loaded and used once, then a settle.
    const warm = await upload(target, session, 8 * MB);
    await download(server.url + warm.link, session);
    await new Promise((r) => setTimeout(r, 3000));
    const idle = server.rssMiB();

    const size = megabytes * MB;
    let started = performance.now();
    const up = await peakDuring(server, () => upload(target, session, size));
    const uploadSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const down = await peakDuring(server, () => download(server.url + up.value.link, session));
    const downloadSeconds = (performance.now() - started) / 1000;
    const range = await download(server.url + up.value.link, session, { range: 'bytes=100-199' });
    const result: FilesResult = {
      megabytes,
      idleRssMiB: Math.round(idle),
      uploadPeakRssMiB: Math.round(up.peak),
      downloadPeakRssMiB: Math.round(down.peak),
      uploadMBps: Number((megabytes / uploadSeconds).toFixed(1)),
      downloadMBps: Number((megabytes / downloadSeconds).toFixed(1)),
      identical: down.value.size === size && down.value.sha256 === up.value.sha256,
      rangeExact: range.status === 206 && !!range.bytes?.equals(chunkAt(100, 100)),
    };
    return result;
  } finally {
    await server.stop();
    await s3.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(s3.dir, { recursive: true, force: true });
  }
}

export function filesTable(db: string, r: FilesResult): string {
  return [
    '',
    '| db | F: file on S3 | idle RSS MiB | upload peak RSS MiB (Δ) | download peak RSS MiB (Δ) | upload MB/s | download MB/s | byte-identical | Range 100-199 exact |',
    '|---|---|---|---|---|---|---|---|---|',
    `| ${db} | ${r.megabytes} MB | ${r.idleRssMiB} | ${r.uploadPeakRssMiB} (+${r.uploadPeakRssMiB - r.idleRssMiB}) | ${r.downloadPeakRssMiB} (+${r.downloadPeakRssMiB - r.idleRssMiB}) | ${r.uploadMBps} | ${r.downloadMBps} | ${r.identical ? 'yes' : 'NO'} | ${r.rangeExact ? 'yes' : 'NO'} |`,
  ].join('\n');
}

// `tsx bench/files.ts` runs F alone (what `npm run bench -- --only F` runs within the bench).
if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchFiles(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {});
  console.log(filesTable(process.env.DATABASE_URL ? 'postgres' : 'pglite', r));
}
