import { Type, type Static } from 'typebox';
import { DateTime, Id, Nullable } from '../../platform/schemas.js';
import { PORTABILITY_KINDS, PORTABILITY_STATUSES } from '../../db/schema/portability.js';

// Organization export and import (issue 20, items 1 and 2).

export const PortabilityReportSchema = Type.Object(
  {
    counts: Type.Record(Type.String(), Type.Integer(), {
      description: 'rows per table (and usersMatched, usersInvited, storedFiles for an import; files for an export)',
    }),
    skipped: Type.Array(Type.Object({ reason: Type.String(), count: Type.Integer() }), { description: 'what was left out or changed, and why' }),
  },
  { description: 'what the job wrote, and what it left out and why' },
);

export const PortabilityJobSchema = Type.Object(
  {
    id: Type.Integer(),
    kind: Type.Unsafe<(typeof PORTABILITY_KINDS)[number]>({ type: 'string', enum: [...PORTABILITY_KINDS] }),
    status: Type.Unsafe<(typeof PORTABILITY_STATUSES)[number]>({
      type: 'string',
      enum: [...PORTABILITY_STATUSES],
      description: 'queued, running, succeeded, failed; an export whose archive was removed after 7 days is expired',
    }),
    creatorId: Nullable(Type.Integer()),
    total: Type.Integer({ description: 'rows and files to write' }),
    processed: Type.Integer({ description: 'rows and files written so far' }),
    archiveSize: Nullable(Type.Integer({ description: 'bytes of the archive (the export written, the import uploaded)' })),
    importedOrganizationId: Nullable(Type.Integer({ description: 'the organization an import created, once it succeeded' })),
    report: Nullable(PortabilityReportSchema),
    error: Nullable(Type.String()),
    createdAt: DateTime(),
    finishedAt: Nullable(DateTime()),
    expiresAt: Nullable(DateTime('when an export’s archive is removed')),
  },
  { $id: 'PortabilityJob', description: 'an organization export or import and its progress' },
);
export type PortabilityJobDto = Static<typeof PortabilityJobSchema>;

export const ExportParams = Type.Object({ exportId: Id('export id') });
export const ImportParams = Type.Object({ importId: Id('import id') });
