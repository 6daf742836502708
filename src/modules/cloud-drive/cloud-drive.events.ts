import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { withTransaction } from '../../db/tx.js';
import { systemWrite } from '../../platform/context.js';
import { emit } from '../../platform/events.js';
import type { CloudDriveIntegrationDto } from './cloud-drive.schemas.js';
import type { DriveDeps } from './cloud-drive.tokens.js';

/**
 * A write about a user's drive made without their session (the callback, a refresh the provider
 * refused), in its own transaction. Its event (`integration.*`, to that user alone) is filed under
 * the organization the user acts in; a user with none gets the write without the event.
 */
export async function writeForDriveUser<T>(
  deps: Pick<DriveDeps, 'app'>,
  userId: number,
  fn: (db: Queryable, announce: (type: 'integration.connected' | 'integration.disconnected', payload: CloudDriveIntegrationDto) => void) => Promise<T>,
): Promise<T> {
  const { app } = deps;
  const [home] = await queryRows<{ org: number | null }>(
    app.database.db,
    sql`select coalesce(u.active_organization_id,
          (select om.organization_id from organization_members om where om.user_id = u.id and om.active and om.deleted_at is null limit 1)) as org
        from users u where u.id = ${userId}`,
  );
  if (home?.org == null) return withTransaction(app.database.db, ({ tx }) => fn(tx, () => {}));
  return systemWrite(app, Number(home.org), (sys) => fn(sys.db, (type, payload) => emit(sys.db, { type, userId, payload })));
}
