import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * Writes dist/sw.js from web/sw.js with this build's app shell (index.html, the hashed assets, the
 * manifest and icons) and a version taken from their names, so every build is a new worker.
 */
function serviceWorker(): Plugin {
  return {
    name: 'workboard-service-worker',
    apply: 'build',
    writeBundle(options, bundle) {
      const publicFiles = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? publicFiles(path.join(dir, e.name)) : [path.relative(path.join(import.meta.dirname, 'public'), path.join(dir, e.name)).split(path.sep).join('/')]));
      const files = [...Object.keys(bundle), ...publicFiles(path.join(import.meta.dirname, 'public'))].filter((f) => f !== 'sw.js').sort();
      const version = createHash('sha256').update(files.join('\n')).update(readFileSync(path.join(import.meta.dirname, 'sw.js'))).digest('hex').slice(0, 12);
      const shell = files.map((f) => `/app/${f}`);
      const source = readFileSync(path.join(import.meta.dirname, 'sw.js'), 'utf8').replace('__VERSION__', version).replace('__SHELL__', JSON.stringify(shell));
      writeFileSync(path.join(options.dir!, 'sw.js'), source);
    },
  };
}

// The service serves the build under /app/ (src/platform/web-client.ts); `npm run web:dev` proxies
// the API to a service on :3000 so the client can be worked on with hot reload.
const api = 'http://127.0.0.1:3000';
const apiPaths = ['/auth', '/user', '/users', '/spaces', '/space-groups', '/projects', '/tasks', '/labels', '/time-records', '/timers', '/notifications', '/files', '/invite-links', '/webhooks', '/pages', '/reglaments', '/analytics', '/ai'];

export default defineConfig({
  root: import.meta.dirname,
  base: '/app/',
  plugins: [react(), serviceWorker()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1024 },
  server: {
    proxy: Object.fromEntries([...apiPaths.map((p) => [p, api]), ['/events', { target: api, ws: true }]]),
  },
});
