import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, type TestUser } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';
import { useEmailTestApp } from './email.fixtures.js';
import { sendNotificationEmails } from './email.notifications.js';

const { t, smtp, send } = useEmailTestApp('notify');
const f = factories(t);

/** The test clock: the job runs at this moment, whatever the wall clock says. */
const at = (iso: string) => new Date(iso);
// Near the wall clock (notifications older than 48 hours are never mailed): today, at the given UTC hour.
const today = (hour: number, minute = 0) => {
  const d = new Date();
  d.setUTCHours(hour, minute, 0, 0);
  return d;
};
const hoursLater = (d: Date, h: number) => new Date(d.getTime() + h * 3600_000);

async function board(user: TestUser) {
  const space = await f.space(user);
  const project = await f.project(user, space.id, 'Roadmap');
  const stage = await f.stage(user, project.id);
  const a = await f.task(user, stage.id, { name: 'Write <the> spec' });
  const b = await f.task(user, stage.id, { name: 'Ship it' });
  return { project, a, b };
}

async function notify(user: TestUser, text: string, taskId: number | null, projectId: number | null, type = 'mention') {
  await t.sql(sql`insert into notifications (organization_id, user_id, type, text, task_id, project_id, dedup_key)
                  values (${user.organizationId}, ${user.id}, ${type}, ${text}, ${taskId}, ${projectId}, ${`test-${Math.random()}`})`);
}

/** A user whose address is verified (the verification flow itself: email.verification.test.ts). */
async function verifiedUser(o: { name?: string } = {}): Promise<TestUser> {
  const user = await t.org(o);
  await t.sql(sql`update users set email_verified_at = now() where id = ${user.id}`);
  return user;
}

const setting = (user: TestUser, body: Record<string, unknown>) => t.as(user).put('/user/notification-email', body);

describe('notification emails', () => {
  it('defaults to a daily digest at 08:00 UTC, changed with PUT', async () => {
    const user = await verifiedUser();
    expect((await t.as(user).get('/user/notification-email')).json()).toEqual({ mode: 'daily', hour: 8, timeZone: 'UTC', mentionsImmediately: false });
    const res = await setting(user, { mode: 'hourly', hour: 18, timeZone: 'Europe/Moscow' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ mode: 'hourly', hour: 18, timeZone: 'Europe/Moscow', mentionsImmediately: false });
    expect((await t.as(user).get('/user/notification-email')).json()).toEqual(res.json());
  });

  it('refuses a bad setting with 400, changing nothing', async () => {
    const user = await verifiedUser();
    for (const body of [{ mode: 'weekly', hour: 8, timeZone: 'UTC' }, { mode: 'daily', hour: 24, timeZone: 'UTC' }, { mode: 'daily', hour: 8, timeZone: 'Mars/Olympus' }, {}]) {
      expectProblem(await setting(user, body), 400, 'VALIDATION_FAILED');
    }
    expect((await t.as(user).get('/user/notification-email')).json()).toEqual({ mode: 'daily', hour: 8, timeZone: 'UTC', mentionsImmediately: false });
  });

  commonCases(t, 'GET /user/notification-email', { method: 'GET', setup: async (kit) => ({ url: '/user/notification-email', owner: await kit.org() }) });
  commonCases(t, 'PUT /user/notification-email', {
    method: 'PUT',
    setup: async (kit) => ({ url: '/user/notification-email', owner: await kit.org(), body: { mode: 'off', hour: 8, timeZone: 'UTC' }, badBody: { mode: 'never', hour: 8, timeZone: 'UTC' } }),
  });

  it('immediate: each run mails what is new, once', async () => {
    const user = await verifiedUser();
    const { project, a } = await board(user);
    await setting(user, { mode: 'immediate', hour: 8, timeZone: 'UTC' });
    await notify(user, 'Ada mentioned you', a.id, project.id);
    const now = new Date();
    await sendNotificationEmails(t.app, now);
    await send();
    const [mail] = smtp.to(user.email);
    expect(mail!.subject).toBe('Ada mentioned you');
    expect(mail!.text).toContain(`Roadmap / Write <the> spec\n  - Ada mentioned you: https://board.example.test/app/projects/${project.id}/tasks/${a.id}`);
    expect(mail!.html).toContain('Roadmap / Write &lt;the&gt; spec');
    await sendNotificationEmails(t.app, hoursLater(now, 0.01));
    await send();
    expect(smtp.to(user.email)).toHaveLength(1);
  });

  it('hourly: groups by project and task, and waits an hour between digests', async () => {
    const user = await verifiedUser();
    const { project, a, b } = await board(user);
    await setting(user, { mode: 'hourly', hour: 8, timeZone: 'UTC' });
    await notify(user, 'one on A', a.id, project.id);
    await notify(user, 'one on B', b.id, project.id);
    await notify(user, 'two on A', a.id, project.id);
    await notify(user, 'no task', null, null);
    const now = new Date();
    expect(await sendNotificationEmails(t.app, now)).toBeGreaterThan(0);
    await send();
    const [first] = smtp.to(user.email);
    expect(first!.subject).toBe('4 new notifications in Workboard');
    const text = first!.text!;
    expect(text.indexOf('Roadmap / Write <the> spec\n  - one on A')).toBeGreaterThan(0);
    expect(text).toContain('  - one on A: ');
    expect(text.indexOf('  - two on A')).toBe(text.indexOf('  - one on A') + text.slice(text.indexOf('  - one on A')).indexOf('\n') + 1);
    expect(text).toContain('Roadmap / Ship it\n  - one on B');
    expect(text).toContain('Other\n  - no task: https://board.example.test/app/');
    await notify(user, 'later', a.id, project.id);
    await sendNotificationEmails(t.app, hoursLater(now, 0.5));
    await send();
    expect(smtp.to(user.email)).toHaveLength(1);
    // The clock moves past the hour: the next digest goes.
    await sendNotificationEmails(t.app, hoursLater(now, 1.01));
    await send();
    expect(smtp.to(user.email).map((m) => m.subject)).toEqual(['4 new notifications in Workboard', 'later']);
  });

  it('daily: at the chosen local hour only, once a day, in the user’s language', async () => {
    const user = await verifiedUser({ name: 'Борис' });
    await t.as(user).patch('/user/language', { language: 'ru' });
    // 09:00 in Moscow is 06:00 UTC.
    await setting(user, { mode: 'daily', hour: 9, timeZone: 'Europe/Moscow' });
    await notify(user, 'первое', null, null);
    await notify(user, 'второе', null, null);
    await sendNotificationEmails(t.app, today(5, 30));
    await send();
    expect(smtp.to(user.email)).toEqual([]);
    await sendNotificationEmails(t.app, today(6, 5));
    await send();
    expect(smtp.to(user.email).map((m) => m.subject)).toEqual(['Новых уведомлений в Workboard: 2']);
    expect(smtp.to(user.email)[0]!.text).toContain('Здравствуйте, Борис!');
    await sendNotificationEmails(t.app, today(6, 40));
    await send();
    expect(smtp.to(user.email)).toHaveLength(1);
  });

  it('off, and no email at all for a user with nothing new', async () => {
    const off = await verifiedUser();
    await setting(off, { mode: 'off', hour: 8, timeZone: 'UTC' });
    await notify(off, 'quiet', null, null);
    const idle = await verifiedUser();
    await setting(idle, { mode: 'immediate', hour: 8, timeZone: 'UTC' });
    await sendNotificationEmails(t.app, new Date());
    await send();
    expect(smtp.to(off.email)).toEqual([]);
    expect(smtp.to(idle.email)).toEqual([]);
  });

  it('carries List-Unsubscribe with one-click POST, which turns them off without a session', async () => {
    const user = await verifiedUser();
    const other = await verifiedUser();
    for (const u of [user, other]) await setting(u, { mode: 'immediate', hour: 8, timeZone: 'UTC' });
    await notify(user, 'first', null, null);
    await sendNotificationEmails(t.app, new Date());
    await send();
    const [mail] = smtp.to(user.email);
    const line = (key: string) => mail!.headerLines.find((h) => h.key === key)?.line ?? '';
    expect(line('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    const header = line('list-unsubscribe');
    const url = /<(https:\/\/board\.example\.test\/email\/unsubscribe\?token=[^>]+)>/.exec(header)![1]!;
    const path = url.replace('https://board.example.test', '');

    // A forged token (another user's id with this signature) does nothing.
    const forged = path.replace(/token=\d+/, `token=${other.id}`);
    expectProblem(await t.app.inject({ method: 'POST', url: forged, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400);
    const res = await t.app.inject({ method: 'POST', url: path, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.statusCode).toBe(204);
    expect((await t.as(user).get('/user/notification-email')).json().mode).toBe('off');
    expect((await t.as(other).get('/user/notification-email')).json().mode).toBe('immediate');
    await notify(user, 'second', null, null);
    await sendNotificationEmails(t.app, hoursLater(new Date(), 2));
    await send();
    expect(smtp.to(user.email)).toHaveLength(1);
  });

  it('mentions immediately: a mention goes at once beside a daily digest, which then leaves it out', async () => {
    const user = await verifiedUser();
    const { project, a } = await board(user);
    // Older clients leave the option out: it stays as it is.
    expect((await setting(user, { mode: 'daily', hour: 9, timeZone: 'UTC' })).json().mentionsImmediately).toBe(false);
    const res = await setting(user, { mode: 'daily', hour: 9, timeZone: 'UTC', mentionsImmediately: true });
    expect(res.json()).toEqual({ mode: 'daily', hour: 9, timeZone: 'UTC', mentionsImmediately: true });
    expect((await setting(user, { mode: 'daily', hour: 9, timeZone: 'UTC' })).json().mentionsImmediately).toBe(true);
    await notify(user, 'a comment', a.id, project.id, 'message.created');
    await notify(user, 'You were mentioned in “Write <the> spec”', a.id, project.id, 'message.mention');
    // 07:00 UTC: no digest is due, the mention goes alone.
    await sendNotificationEmails(t.app, today(7));
    await send();
    expect(smtp.to(user.email).map((m) => m.subject)).toEqual(['You were mentioned in “Write <the> spec”']);
    await sendNotificationEmails(t.app, today(7, 30));
    await send();
    expect(smtp.to(user.email)).toHaveLength(1);
    // 09:00 UTC: the digest has the comment, not the mention again.
    await sendNotificationEmails(t.app, today(9, 5));
    await send();
    const digest = smtp.to(user.email)[1]!;
    expect(digest.subject).toBe('a comment');
    expect(digest.text).not.toContain('mentioned');
  });

  it('mentions immediately does nothing while notification emails are off', async () => {
    const user = await verifiedUser();
    await setting(user, { mode: 'off', hour: 8, timeZone: 'UTC', mentionsImmediately: true });
    await notify(user, 'You were mentioned', null, null, 'message.mention');
    await sendNotificationEmails(t.app, new Date());
    await send();
    expect(smtp.to(user.email)).toEqual([]);
  });
});
