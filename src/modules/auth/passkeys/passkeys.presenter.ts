import type { Static } from 'typebox';
import type { passkeys } from '../../../db/schema/index.js';
import { iso } from '../../../platform/http.js';
import type { PasskeySchema } from './passkeys.schemas.js';

/** Never the credential id or public key: a passkey is shown by what its owner can recognise it by. */
export const presentPasskey = (p: typeof passkeys.$inferSelect): Static<typeof PasskeySchema> => ({
  id: p.id,
  name: p.name,
  createdAt: iso(p.createdAt)!,
  lastUsedAt: iso(p.lastUsedAt),
  backedUp: p.backedUp,
  transports: p.transports,
});
