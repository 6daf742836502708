import { sql } from 'drizzle-orm';
import type { TestKit, TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';

// A public name that does not resolve in the sandbox: accepted at create, checked again at delivery.
export const URL_ = 'https://hooks.example.com/in';
// Events that none of these worlds fire, so nothing is ever queued behind a test's back.
export const QUIET = ['reglament.question.deleted'];

/** A board with a space admin and an editor, an organization-wide webhook and one of the space. */
export async function world(t: TestKit) {
  const f = factories(t);
  const { owner, space, project, stages } = await f.board(1);
  const spaceAdmin = await f.spaceMember(owner, space.id, 'admin');
  const editor = await f.spaceMember(owner, space.id, 'editor');
  const orgHook = (await t.as(owner).post('/webhooks', { url: URL_, events: QUIET })).json();
  const spaceHook = (await t.as(spaceAdmin).post('/webhooks', { url: `${URL_}/space`, events: QUIET, spaceId: space.id })).json();
  return { owner, space, project, stage: stages[0]!, spaceAdmin, editor, orgHook, spaceHook };
}

export const deliveriesOf = (t: TestKit, webhookId: number) =>
  t.sql<{ status: string; event_type: string; next_retry_at: Date | null }>(
    sql`select status, event_type, next_retry_at from webhook_deliveries where webhook_id = ${webhookId} order by id`,
  );

/** A delivery row as the queue would hold it, `ageDays` old. */
export async function queueDelivery(t: TestKit, user: TestUser, webhookId: number, status: string, ageDays = 0) {
  await t.sql(sql`insert into webhook_deliveries (organization_id, webhook_id, event_id, event_type, body, status, attempts, next_retry_at, created_at)
    values (${user.organizationId}, ${webhookId}, 1, 'task.created', '{}', ${status}, ${status === 'pending' ? 0 : 1},
            ${status === 'pending' ? sql`now() + interval '1 hour'` : null}, now() - make_interval(days => ${ageDays}))`);
}
