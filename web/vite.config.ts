import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The service serves the build under /app/ (src/platform/web-client.ts); `npm run web:dev` proxies
// the API to a service on :3000 so the client can be worked on with hot reload.
const api = 'http://127.0.0.1:3000';
const apiPaths = ['/auth', '/user', '/users', '/spaces', '/space-groups', '/projects', '/tasks', '/labels', '/time-records', '/timers', '/notifications', '/files', '/invite-links', '/webhooks', '/pages', '/reglaments', '/analytics', '/ai'];

export default defineConfig({
  root: import.meta.dirname,
  base: '/app/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1024 },
  server: {
    proxy: Object.fromEntries([...apiPaths.map((p) => [p, api]), ['/events', { target: api, ws: true }]]),
  },
});
