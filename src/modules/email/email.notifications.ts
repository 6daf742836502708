import type { FastifyInstance } from 'fastify';
import { sql, type SQL } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import { registerJob } from '../../platform/jobs.js';
import { INVITED_PASSWORD_HASH } from '../../db/schema/users.js';
import { digest, type DigestItem } from './email.digest.js';
import { languageOf } from './email.layout.js';
import { queueEmail, wakeEmail } from './email.outbox.js';
import { unsubscribeUrl } from './email.unsubscribe.js';

export const NOTIFICATION_EMAIL_JOB = 'email.notifications';
/** Notifications older than this are never emailed (email turned on late must not mail a backlog). */
const MAX_AGE_HOURS = 48;
const USERS_PER_RUN = 200;

interface Due {
  id: number;
  email: string;
  name: string;
  language: string | null;
  /** Everything new goes, as the setting says; else only mentions do (mentions immediately). */
  digestDue: boolean;
}

/** The notification type of a mention in a task's chat (notifications.pipeline.ts). */
const MENTION = 'message.mention';

/**
 * Emails users their new unread notifications, as their setting says: at once, at most hourly, or
 * once a day at their local hour (no setting: daily at 08:00 UTC). `now` is the job's clock, a
 * parameter so a test moves it instead of waiting. Each user's message is queued in the transaction
 * that moves their watermark, so a notification is emailed once.
 */
export async function sendNotificationEmails(app: FastifyInstance, now: Date): Promise<number> {
  if (!app.config.email.smtpUrl) return 0;
  const at = now.toISOString();
  const fresh = (alias: SQL) => sql`not n.read and not n.archived and n.created_at > ${at}::timestamptz - make_interval(hours => ${MAX_AGE_HOURS}) and n.user_id = ${alias}`;
  const due = await queryRows<Due>(
    app.database.db,
    sql`select * from (
          select u.id, u.email, u.name, u.language,
            case coalesce(s.mode, 'daily')
              when 'immediate' then true
              when 'hourly' then s.last_sent_at is null or s.last_sent_at <= ${at}::timestamptz - interval '1 hour'
              when 'daily' then extract(hour from ${at}::timestamptz at time zone coalesce(s.time_zone, 'UTC')) = coalesce(s.hour, 8)
                                and (s.last_sent_at is null or s.last_sent_at <= ${at}::timestamptz - interval '23 hours')
              else false end as "digestDue",
            -- Off is off (one-click unsubscribe stops every notification email): mentions go at once only beside a digest.
            coalesce(s.mentions_immediately and s.mode in ('hourly', 'daily'), false)
              and exists (select 1 from notifications n where ${fresh(sql`u.id`)} and n.type = ${MENTION}
                          and n.id > greatest(s.sent_through, s.mentions_sent_through)) as "mentionsDue"
          from users u left join notification_email_settings s on s.user_id = u.id
          where u.password_hash <> ${INVITED_PASSWORD_HASH} and u.email_verified_at is not null
            and exists (select 1 from notifications n where ${fresh(sql`u.id`)} and n.id > coalesce(s.sent_through, 0))
        ) d
        where d."digestDue" or d."mentionsDue"
        order by d.id limit ${USERS_PER_RUN}`,
  );
  let sent = 0;
  for (const user of due) if (await emailOne(app, user, at)) sent++;
  if (sent > 0) wakeEmail(app);
  return sent;
}

async function emailOne(app: FastifyInstance, user: Due, at: string): Promise<boolean> {
  return app.database.db.transaction(async (db) => {
    // The watermark row, locked: a second run (another instance) waits and then finds nothing new.
    await db.execute(sql`insert into notification_email_settings (user_id) values (${user.id}) on conflict do nothing`);
    const [mark] = await queryRows<{ through: number; mentionsThrough: number }>(
      db,
      sql`select sent_through as through, mentions_sent_through as "mentionsThrough" from notification_email_settings where user_id = ${user.id} for update`,
    );
    const through = Number(mark?.through ?? 0);
    const mentionsThrough = Number(mark?.mentionsThrough ?? 0);
    // A digest leaves out the mentions already mailed at once; a mentions-only run takes nothing else.
    const which = user.digestDue
      ? sql`n.id > ${through} and not (n.type = ${MENTION} and n.id <= ${mentionsThrough})`
      : sql`n.type = ${MENTION} and n.id > greatest(${through}::bigint, ${mentionsThrough}::bigint)`;
    const items = await queryRows<DigestItem & { id: number }>(
      db,
      sql`select n.id, n.text, n.task_id as "taskId", t.name as "taskName", n.project_id as "projectId", p.name as "projectName"
          from notifications n left join tasks t on t.id = n.task_id left join projects p on p.id = n.project_id
          where n.user_id = ${user.id} and ${which} and not n.read and not n.archived
            and n.created_at > ${at}::timestamptz - make_interval(hours => ${MAX_AGE_HOURS})
          order by n.project_id nulls last, n.task_id nulls last, n.id`,
    );
    if (items.length === 0) {
      // Only mentions already mailed at once were new: the digest's watermark catches up with them.
      if (user.digestDue && mentionsThrough > through) {
        await db.execute(sql`update notification_email_settings set sent_through = ${mentionsThrough}, updated_at = now() where user_id = ${user.id}`);
      }
      return false;
    }
    const unsubscribe = unsubscribeUrl(app, Number(user.id));
    const message = digest(languageOf(user.language), user.name, items, app.config.publicUrl, unsubscribe);
    await queueEmail(app, db, [
      {
        to: user.email,
        kind: 'notifications',
        userId: Number(user.id),
        message,
        headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      },
    ]);
    const last = Math.max(...items.map((i) => Number(i.id)));
    await db.execute(
      user.digestDue
        ? sql`update notification_email_settings set sent_through = ${last}, last_sent_at = ${at}::timestamptz, updated_at = now() where user_id = ${user.id}`
        : sql`update notification_email_settings set mentions_sent_through = ${last}, updated_at = now() where user_id = ${user.id}`,
    );
    return true;
  });
}

export function registerNotificationEmails(app: FastifyInstance): void {
  if (!app.config.email.smtpUrl) return;
  registerJob(app, { name: NOTIFICATION_EMAIL_JOB, intervalMs: 60_000, exclusive: true, run: async (a) => void (await sendNotificationEmails(a, new Date())) });
}
