import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../db/client.js';
import { writeAboutUser } from '../../platform/context.js';
import { emit } from '../../platform/events.js';
import type { CloudDriveIntegrationDto } from './cloud-drive.schemas.js';

/**
 * A write about a user's drive made without their session (the callback, a refresh the provider
 * refused), in its own transaction. Its event (`integration.*`, to that user alone) is filed under
 * the organization the user acts in; a user with none gets the write without the event.
 */
export function writeForDriveUser<T>(
  deps: { app: FastifyInstance },
  userId: number,
  fn: (db: Queryable, announce: (type: 'integration.connected' | 'integration.disconnected', payload: CloudDriveIntegrationDto) => void) => Promise<T>,
): Promise<T> {
  return writeAboutUser(deps.app, userId, (db, org) =>
    fn(db, (type, payload) => {
      if (org !== null) emit(db, { type, userId, payload });
    }),
  );
}
