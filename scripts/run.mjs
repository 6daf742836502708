// The operator commands (`npm run migrate`, create-admin, backup, restore, files:migrate,
// files:sweep): `node scripts/run.mjs <entry> [args…]` runs dist/<entry>.js, the compiled build,
// in this same process. Only where there is no current build and tsx is installed (a development
// checkout before its first `npm start`, or with sources changed since) does it run src/<entry>.ts
// through tsx instead. A production install (`npm ci --omit=dev`, no tsx) always runs dist/, with a
// warning if it is older than src/; without dist/ it says to build.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { dist, isFresh, resolvable, root } from './build.mjs';

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/run.mjs <entry, e.g. create-admin or db/migrate-cli> [args…]');
  process.exit(2);
}
const compiled = path.join(dist, `${entry}.js`);
const source = path.join(root, 'src', `${entry}.ts`);

const hasTsx = () => resolvable('tsx/esm/api');

// The command sees its own arguments as `node <file> args…` would give them.
const runAs = (file) => {
  process.argv = [process.argv[0], file, ...args];
};

// Without src/ (an image holding only the build) the build is all there is.
const sources = existsSync(path.join(root, 'src'));
if (existsSync(compiled) && (!sources || isFresh() || !hasTsx())) {
  if (sources && !isFresh()) console.error('warning: dist/ is older than src/ and tsx is not installed; running the existing build');
  // Stack traces name src/*.ts lines, as under `npm start`.
  process.setSourceMapsEnabled(true);
  runAs(compiled);
  await import(pathToFileURL(compiled).href);
} else if (sources && existsSync(source) && hasTsx()) {
  const { register } = await import('tsx/esm/api');
  register();
  runAs(source);
  await import(pathToFileURL(source).href);
} else {
  console.error(`${path.relative(root, compiled)} is missing: build the service first (\`npm run build\`, which needs the dev dependencies)`);
  process.exit(1);
}
