// `npm start`: builds dist/ and the web client (web/dist/) when missing or stale, then runs the
// compiled server in this same process. One process and no wrapper: the SIGTERM npm forwards reaches the server itself, which
// drains and exits, and there is nothing left behind to keep serving.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { dist, ensureBuild } from './build.mjs';
import { ensureWebBuild } from './build-web.mjs';

try {
  // Side by side: esbuild and Vite each run in processes of their own (a fresh clone's first start).
  const builds = await Promise.allSettled([ensureBuild(), ensureWebBuild()]);
  for (const b of builds) if (b.status === 'rejected') throw b.reason;
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
// No process.setSourceMapsEnabled here: Node would parse every module's map at load (17 MB held);
// the server maps a stack's frames when one is formatted (src/platform/stack-traces.ts).
await import(pathToFileURL(path.join(dist, 'server.js')).href);
