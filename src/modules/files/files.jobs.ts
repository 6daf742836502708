import type { FastifyInstance } from 'fastify';
import { registerJob } from '../../platform/jobs.js';
import { runDeletions, sweepOrphans } from '../../platform/storage/deletions.js';

export const FILE_DELETES_JOB = 'files.deletes';
export const FILE_SWEEP_JOB = 'files.sweep';

/**
 * Storage upkeep. Deletions queued by committed changes are retried until storage answers (every
 * instance takes a share, claimed with a lease); once a day one instance sweeps objects no row refers to.
 */
export function registerFileJobs(app: FastifyInstance): void {
  registerJob(app, {
    name: FILE_DELETES_JOB,
    intervalMs: 30_000,
    exclusive: false,
    run: async (a) => {
      const outcome = await runDeletions(a.database.db, a.files.backend);
      if (outcome.failed > 0) a.log.warn(outcome, 'files: some stored objects could not be removed yet; retrying later');
    },
  });
  registerJob(app, {
    name: FILE_SWEEP_JOB,
    intervalMs: 24 * 3600_000,
    exclusive: true,
    run: async (a) => {
      const report = await sweepOrphans(a.database.db, a.files.backend);
      a.log.info({ scanned: report.scanned, removed: report.removed, bytes: report.orphanBytes }, 'files: swept objects no file refers to');
    },
  });
}
