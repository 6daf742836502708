import type { App } from '../../platform/types.js';
import { Type } from 'typebox';
import { VERSION } from '../../version.js';

const tags = ['Service'];
const Health = Type.Object({ status: Type.String(), db: Type.String(), version: Type.String() }, { $id: 'Health' });
const Ready = Type.Object(
  {
    status: Type.String(),
    db: Type.String(),
    storage: Type.String({ description: 'where files are stored: local or s3' }),
    version: Type.String(),
    reason: Type.Optional(Type.String({ description: 'why the service is not ready' })),
  },
  { $id: 'Readiness' },
);

export default async function serviceRoutes(app: App): Promise<void> {
  // Liveness: the process answers; no database call, so it is also the benchmark's ceiling route.
  app.get('/health', { config: { public: true }, schema: { tags, summary: 'Process is up', security: [], response: { 200: Health } } }, async () => ({
    status: 'ok',
    db: app.database.kind,
    version: VERSION,
  }));

  // Readiness: the database and file storage answer; when one does not, `reason` says which and why.
  app.get(
    '/ready',
    { config: { public: true }, schema: { tags, summary: 'Database and file storage are reachable (503 if not)', security: [], response: { 200: Ready, 503: Ready } } },
    async (_request, reply) => {
      const base = { db: app.database.kind, storage: app.files.backend.kind, version: VERSION };
      try {
        await app.database.ping();
      } catch {
        return reply.code(503).send({ status: 'unavailable', ...base, reason: 'the database cannot be reached' });
      }
      try {
        await app.files.check();
      } catch (error) {
        return reply.code(503).send({ status: 'unavailable', ...base, reason: (error as Error).message });
      }
      return { status: 'ok', ...base };
    },
  );
}
