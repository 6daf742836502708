import { Type } from 'typebox';
import { read, write, writeForUser } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { App } from '../../platform/types.js';
import { registerNotificationEmails } from './email.notifications.js';
import { startEmail } from './email.outbox.js';
import { loadNotificationEmail, setNotificationEmail, turnNotificationEmailOff } from './email.preferences.js';
import { NotificationEmailBody, NotificationEmailSchema, UnsubscribeQuery, VerifyEmailBody } from './email.schemas.js';
import { confirmEmailVerification, issueEmailVerification } from './email.verification.js';
import { joinHooks } from '../auth/auth.hooks.js';
import { userOfUnsubscribeToken } from './email.unsubscribe.js';

const tags = ['Notifications'];

/** The email module: its sender and notification emails (when SMTP_URL is set), the setting, and one-click unsubscribe. */
export default async function emailRoutes(app: App): Promise<void> {
  startEmail(app);
  registerNotificationEmails(app);
  // A sign-up queues its address's verification (the sender's poll sends it: the hook cannot wake it
  // after commit). The hook keeps no app: apps of one process (tests) each pass their own.
  joinHooks.registered = async (db, userId, mailer) => {
    if (mailer) await issueEmailVerification(mailer, db, userId);
  };
  // A mail client's one-click POST is a form (`List-Unsubscribe=One-Click`); the token is in the URL.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_request, body, done) => done(null, body));

  app.get('/user/notification-email', { schema: { tags, summary: 'Own notification email setting', response: { 200: NotificationEmailSchema } } }, (request) =>
    read(app, request, (ctx) => loadNotificationEmail(ctx.db, ctx.actor.userId)),
  );

  app.put(
    '/user/notification-email',
    {
      schema: {
        tags,
        summary: 'Set own notification emails: off, immediate, hourly or daily digest (local hour, time zone), and whether mentions go at once beside a digest',
        body: NotificationEmailBody,
        response: { 200: NotificationEmailSchema },
      },
    },
    (request) => write(app, request, (ctx) => setNotificationEmail(ctx, request.body)),
  );

  app.post(
    '/auth/verify-email',
    {
      config: { public: true },
      schema: { tags: ['Authentication'], summary: 'Confirm an email address with the emailed link’s token', security: [], body: VerifyEmailBody, response: { 204: Type.Null() } },
    },
    async (request, reply) => {
      await confirmEmailVerification(app, request.body.token);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/email/unsubscribe',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'One-click unsubscribe (RFC 8058) from notification emails, by the signed token of the List-Unsubscribe URL; no session',
        security: [],
        querystring: UnsubscribeQuery,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const userId = userOfUnsubscribeToken(app, request.query.token);
      if (userId === null) throw new AppError('BAD_REQUEST', 'this unsubscribe link is not valid');
      await writeForUser(app, userId, (db) => turnNotificationEmailOff(db, userId));
      return reply.code(204).send(null);
    },
  );
}
