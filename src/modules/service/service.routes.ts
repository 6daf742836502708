import type { App } from '../../platform/types.js';
import { Type } from 'typebox';
import { VERSION } from '../../app.js';

const tags = ['Service'];
const Health = Type.Object({ status: Type.String(), db: Type.String(), version: Type.String() }, { $id: 'Health' });

export default async function serviceRoutes(app: App): Promise<void> {
  // Liveness: the process answers; no database call, so it is also the benchmark's ceiling route.
  app.get('/health', { config: { public: true }, schema: { tags, summary: 'Process is up', security: [], response: { 200: Health } } }, async () => ({
    status: 'ok',
    db: app.database.kind,
    version: VERSION,
  }));

  // Readiness: the database answers.
  app.get(
    '/ready',
    { config: { public: true }, schema: { tags, summary: 'Database is reachable (503 if not)', security: [], response: { 200: Health, 503: Health } } },
    async (_request, reply) => {
      try {
        await app.database.ping();
        return { status: 'ok', db: app.database.kind, version: VERSION };
      } catch {
        return reply.code(503).send({ status: 'unavailable', db: app.database.kind, version: VERSION });
      }
    },
  );
}
