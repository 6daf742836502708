// The compiled build: `tsc -p tsconfig.build.json` into dist/, the migrations copied beside it, and a
// stamp naming the sources it was built from. Plain JavaScript because it runs before anything is
// compiled. `node scripts/build.mjs` builds (`--if-stale`: only when stale); `ensureBuild()` (npm
// start) builds only when stale.
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const dist = path.join(root, 'dist');
const stampFile = path.join(dist, '.build-stamp');
const lockFile = path.join(dist, '.build-lock');
const migrations = ['src/db/migrations', 'dist/db/migrations'].map((p) => path.join(root, p));

// What tsconfig.build.json leaves out: changing them needs no rebuild.
const notBuilt = (rel) => rel.endsWith('.test.ts') || rel.endsWith('.fixtures.ts') || rel.startsWith('src/test/');

export function* inputs(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* inputs(full);
    else yield full;
  }
}

/**
 * Path, size and mtime of every input, hashed. Not just "newest mtime": a deleted file, or one
 * restored with an older mtime (a checkout, a copy that keeps times), must make the build stale too.
 */
export function fingerprint() {
  const files = [...inputs(path.join(root, 'src'))]
    .map((f) => path.relative(root, f).split(path.sep).join('/'))
    .filter((rel) => (rel.endsWith('.ts') && !notBuilt(rel)) || rel.startsWith('src/db/migrations/'));
  files.push('tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs');
  return hashFiles(files);
}

/** Path (relative to the root), size and mtime of each file, hashed. */
export function hashFiles(files) {
  const hash = createHash('sha256');
  for (const rel of [...files].sort()) {
    const s = statSync(path.join(root, rel));
    hash.update(`${rel}:${s.size}:${s.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

const readStamp = () => (existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : null);
export const isFresh = () => existsSync(path.join(dist, 'server.js')) && readStamp() === fingerprint();

function tscPath() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return null;
  }
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};

/** One build at a time per checkout (two `npm start`s at once); a dead holder's lock is taken over. */
export async function withLock(fn, lock = lockFile) {
  mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(lock, 'utf8')) || 0;
      // No build takes 10 minutes: an older lock is a dead holder whose pid was reused.
      const stale = Date.now() - statSync(lock).mtimeMs > 10 * 60_000;
      if (!holder || !alive(holder) || stale) rmSync(lock, { force: true });
      else await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * Runs a build tool (a Node script) as a child; a SIGTERM/SIGINT meanwhile stops it too, so no
 * compiler outlives us. Answers the exit code when it is one of `ok`.
 */
export function runTool(args, { lock = lockFile, ok = [0], env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
    const stop = (signal) => {
      child.kill(signal);
      rmSync(lock, { force: true });
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.once('SIGTERM', stop).once('SIGINT', stop);
    child.on('error', reject);
    child.on('exit', (code) => {
      process.removeListener('SIGTERM', stop).removeListener('SIGINT', stop);
      if (ok.includes(code)) resolve(code);
      else reject(new Error(`${path.basename(args[0])} failed (exit ${code})`));
    });
  });
}

// 2: type errors, JavaScript emitted all the same (as tsx would have run it); else nothing usable.
const compile = async (tsc) => (await runTool([tsc, '-p', path.join(root, 'tsconfig.build.json')], { ok: [0, 2] })) === 2;

/**
 * Compiles into dist/ and copies the migrations beside the compiled migrator (db/migrate.js finds
 * them there). Answers whether tsc reported type errors (the output is written and usable anyway).
 */
export async function build({ onlyIfStale = false, log = (line) => console.error(line) } = {}) {
  const tsc = tscPath();
  if (!tsc) throw new Error('TypeScript is not installed: run `npm install` (with dev dependencies) or build elsewhere with `npm run build`');
  return withLock(async () => {
    // Another process may have built it while we waited for the lock.
    if (onlyIfStale && isFresh()) return false;
    const started = Date.now();
    const sources = fingerprint();
    log('building dist/ (tsc -p tsconfig.build.json)…');
    const typeErrors = await compile(tsc);
    rmSync(migrations[1], { recursive: true, force: true });
    cpSync(migrations[0], migrations[1], { recursive: true });
    writeFileSync(stampFile, `${sources}\n`);
    log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s${typeErrors ? ' with type errors (above)' : ''}`);
    return typeErrors;
  });
}

/** Builds when dist/ is missing or older than its sources; a stale build without a compiler is used with a warning. */
export async function ensureBuild() {
  if (isFresh()) return;
  if (!tscPath() && existsSync(path.join(dist, 'server.js'))) {
    console.error('warning: dist/ is older than src/ and TypeScript is not installed; starting the existing build');
    return;
  }
  await build({ onlyIfStale: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // `npm run build` fails on type errors (the output is still written); npm start only warns.
  // `--if-stale` builds only when the sources changed since the last build (the benchmark uses it).
  const typeErrors = await build({ onlyIfStale: process.argv.includes('--if-stale') }).catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
  if (typeErrors) process.exitCode = 1;
}
