// The web client's build: Vite into web/dist/ with a stamp naming the sources it was built from,
// like scripts/build.mjs does for the service. `node scripts/build-web.mjs` builds (`--if-stale`:
// only when stale); `ensureWebBuild()` (npm start, the test setup) builds only when stale.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashFiles, inputs, root, runTool, withLock } from './build.mjs';

const web = path.join(root, 'web');
export const webDist = path.join(web, 'dist');
const stampFile = path.join(webDist, '.build-stamp');
// Beside, not inside, web/dist: Vite empties its output directory.
const lockFile = path.join(root, 'node_modules', '.cache', 'web-build.lock');

export function webFingerprint() {
  const files = [...inputs(path.join(web, 'src'))]
    .map((f) => path.relative(root, f).split(path.sep).join('/'))
    .filter((rel) => !rel.endsWith('.test.ts') && !rel.endsWith('.test.tsx'));
  // web/public: the manifest and icons; web/sw.js: the service worker's source (vite.config.ts fills it in).
  files.push(...[...inputs(path.join(web, 'public'))].map((f) => path.relative(root, f).split(path.sep).join('/')));
  files.push('web/index.html', 'web/sw.js', 'web/vite.config.ts', 'scripts/build-web.mjs', 'package-lock.json');
  return hashFiles(files);
}

const readStamp = () => (existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : null);
export const isWebFresh = () => existsSync(path.join(webDist, 'index.html')) && readStamp() === webFingerprint();

function viteBin() {
  try {
    // The package's exports hide bin/: found beside its package.json.
    return path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    return null;
  }
}

export async function buildWeb({ onlyIfStale = false, log = (line) => console.error(line) } = {}) {
  const vite = viteBin();
  if (!vite) throw new Error('Vite is not installed: run `npm install` (with dev dependencies) or build the client elsewhere with `npm run web:build`');
  return withLock(async () => {
    if (onlyIfStale && isWebFresh()) return;
    const started = Date.now();
    const sources = webFingerprint();
    log('building web/dist/ (vite build)…');
    await runTool([vite, 'build', '--config', path.join(web, 'vite.config.ts'), '--logLevel', 'warn'], {
      lock: lockFile,
      // Whatever runs the build (the tests set NODE_ENV=test), the client is React's production build.
      env: { ...process.env, NODE_ENV: 'production' },
    });
    writeFileSync(stampFile, `${sources}\n`);
    log(`web client built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, lockFile);
}

/** Builds when web/dist is missing or stale; without Vite an existing build is used with a warning. */
export async function ensureWebBuild() {
  if (isWebFresh()) return;
  if (!viteBin() && existsSync(path.join(webDist, 'index.html'))) {
    console.error('warning: web/dist/ is older than web/src/ and Vite is not installed; serving the existing build');
    return;
  }
  await buildWeb({ onlyIfStale: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildWeb({ onlyIfStale: process.argv.includes('--if-stale') }).catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
