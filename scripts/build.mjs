// The compiled build: esbuild transpiles each src/*.ts (tests and test helpers left out) into
// dist/*.js with a source map, one file for one file (each operator command is its own
// dist/<entry>.js), then bundles the server itself into dist/server.js and its chunks (below), in a
// second or two.
// It does not type-check: `npm run typecheck` does, and CI runs it. The migrations are copied beside
// the compiled migrator, and a stamp names the sources it was built from. Plain JavaScript because
// it runs before anything is compiled; esbuild is imported only when building, so an image holding
// only the build (no dev dependencies) can still use run.mjs. `node scripts/build.mjs` builds (`--if-stale`: only when stale); `ensureBuild()` (npm
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

// What the build leaves out: changing them needs no rebuild.
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
  const files = [...sourceFiles(), ...[...inputs(path.join(root, 'src', 'db', 'migrations'))].map(relative)];
  // The lock file: the vendored packages (below) are copied into dist/, so an upgrade rebuilds.
  files.push('tsconfig.json', 'scripts/build.mjs', 'package-lock.json');
  return hashFiles(files);
}

const relative = (f) => path.relative(root, f).split(path.sep).join('/');

/** The service's sources that are built, relative to the root. */
const sourceFiles = () => [...inputs(path.join(root, 'src'))].map(relative).filter((rel) => rel.endsWith('.ts') && !rel.endsWith('.d.ts') && !notBuilt(rel));

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

/** esbuild's JavaScript API, or null without the dev dependencies (a production install). */
async function loadEsbuild() {
  try {
    return await import('esbuild');
  } catch {
    return null;
  }
}
/** Whether a package resolves from here: a production install has no build or development tools. */
export const resolvable = (specifier) => {
  try {
    createRequire(import.meta.url).resolve(specifier);
    return true;
  } catch {
    return false;
  }
};
const hasEsbuild = () => resolvable('esbuild');

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

/**
 * Transpiles src/ into dist/ (a fresh dist/: no output of a deleted source is left behind) and
 * copies the migrations beside the compiled migrator (db/migrate.js finds them there).
 */
export async function build({ onlyIfStale = false, log = (line) => console.error(line) } = {}) {
  const esbuild = await loadEsbuild();
  if (!esbuild) throw new Error('esbuild is not installed: run `npm install` (with dev dependencies) or build elsewhere with `npm run build`');
  return withLock(async () => {
    // Another process may have built it while we waited for the lock.
    if (onlyIfStale && isFresh()) return;
    const started = Date.now();
    const sources = fingerprint();
    log('building the service (esbuild src/ → dist/)…');
    for (const entry of readdirSync(dist)) if (entry !== path.basename(lockFile)) rmSync(path.join(dist, entry), { recursive: true, force: true });
    try {
      await esbuild.build({
        absWorkingDir: root,
        entryPoints: sourceFiles(),
        outdir: dist,
        outbase: 'src',
        format: 'esm',
        platform: 'node',
        target: 'node20.19',
        // Stack traces name src/*.ts lines; the sources themselves stay out of the maps (memory).
        sourcemap: 'linked',
        sourcesContent: false,
        logLevel: 'warning',
      });
      await vendor(esbuild);
      await bundleServer(esbuild);
    } finally {
      // esbuild's service process (130 MB resident) would otherwise live as long as the server it built.
      await esbuild.stop();
    }
    cpSync(migrations[0], migrations[1], { recursive: true });
    writeFileSync(stampFile, `${sources}\n`);
    log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
}

/*
 * Packages bundled into dist/vendor/ and imported from there: typebox is 679 small modules and
 * drizzle-orm 112, and each module loaded costs the server's heap its records and scope data, well
 * beyond its source. As one file each (their entry points sharing chunks, so one copy of each
 * registry) they hold 3 MB less at start (issue 42, docs/performance.md). Stack traces still name its sources through the map.
 */
const VENDORED = {
  typebox: 'typebox',
  'typebox/value': 'typebox-value',
  'drizzle-orm': 'drizzle-orm',
  'drizzle-orm/pg-core': 'drizzle-orm-pg-core',
  'drizzle-orm/node-postgres': 'drizzle-orm-node-postgres',
  'drizzle-orm/node-postgres/migrator': 'drizzle-orm-node-postgres-migrator',
  'drizzle-orm/pglite': 'drizzle-orm-pglite',
  'drizzle-orm/pglite/migrator': 'drizzle-orm-pglite-migrator',
};

async function vendor(esbuild) {
  const out = path.join(dist, 'vendor');
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(VENDORED).map(([specifier, name]) => [name, specifier])),
    outdir: out,
    bundle: true,
    // Their own dependencies stay packages of node_modules.
    external: ['pg', '@electric-sql/pglite'],
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    minify: true,
    keepNames: true,
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
  });
  // esbuild leaves a transpiled file's imports as written; point the vendored ones at dist/vendor/.
  const specifiers = new RegExp(`((?:from|import)\\s*\\(?\\s*)"(${Object.keys(VENDORED).sort((a, b) => b.length - a.length).join('|')})"`, 'g');
  for (const file of inputs(dist)) {
    if (!file.endsWith('.js') || file.startsWith(out + path.sep)) continue;
    const text = readFileSync(file, 'utf8');
    const rewritten = text.replace(specifiers, (_m, lead, specifier) => {
      const from = path.relative(path.dirname(file), path.join(out, `${VENDORED[specifier]}.js`)).split(path.sep).join('/');
      return `${lead}"${from.startsWith('.') ? from : `./${from}`}"`;
    });
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
}

/*
 * The server itself as one bundle: dist/server.js and the chunks its first-use imports load, all in
 * dist/ (the other dist/ files stay, one per source, for the operator commands). Each module the
 * server loads costs it records and native memory well beyond its source (about 9 KB resident
 * apiece): the 500-odd modules of src/ as a score of files took 3–4 MiB off the idle server (issue
 * 42, docs/performance.md). Packages stay in node_modules, except the vendored ones, inlined.
 */
async function bundleServer(esbuild) {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const external = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((name) => !Object.keys(VENDORED).some((v) => v.split('/')[0] === name));
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: { server: 'src/server.ts' },
    outdir: dist,
    bundle: true,
    splitting: true,
    chunkNames: 'server-[hash]',
    minify: true,
    keepNames: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    external: external.flatMap((name) => [name, `${name}/*`]),
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [placedAsBuilt],
  });
}

/**
 * A module finds files beside itself (db/migrate.ts its migrations, version.ts package.json):
 * bundled, its import.meta names the bundle's file in dist/, so it is given the place its own
 * compiled file has (dist/db/migrate.js), from which the same relative paths hold.
 */
const placedAsBuilt = {
  name: 'placed-as-built',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.')) return { contents: text, loader: 'ts' };
      const compiled = relative(args.path).replace(/^src\//, '').replace(/\.ts$/, '.js');
      const dir = path.posix.dirname(compiled);
      return {
        contents: text
          .replaceAll('import.meta.url', `new URL(${JSON.stringify(`./${compiled}`)}, import.meta.url).href`)
          .replaceAll('import.meta.dirname', dir === '.' ? 'import.meta.dirname' : `(import.meta.dirname + ${JSON.stringify(`/${dir}`)})`),
        loader: 'ts',
      };
    });
  },
};

/** Builds when dist/ is missing or older than its sources; a stale build without esbuild is used with a warning. */
export async function ensureBuild() {
  if (isFresh()) return;
  if (!hasEsbuild() && existsSync(path.join(dist, 'server.js'))) {
    console.error('warning: dist/ is older than src/ and esbuild is not installed; starting the existing build');
    return;
  }
  await build({ onlyIfStale: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // `--if-stale` builds only when the sources changed since the last build (the benchmark uses it).
  // Type errors are `npm run typecheck`'s to find, not the build's.
  await build({ onlyIfStale: process.argv.includes('--if-stale') }).catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
