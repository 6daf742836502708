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

/** A load balancer's check must answer in time even when the database does not (a stalled network). */
function withinTime(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

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
      const outage = app.database.outage;
      if (outage.down) {
        const seconds = Math.round((Date.now() - outage.since) / 1000);
        return reply.code(503).send({ status: 'unavailable', ...base, reason: `the database is unavailable (${outage.cause}) for ${seconds} s` });
      }
      try {
        await withinTime(app.database.ping(), app.config.readyTimeoutMs);
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
