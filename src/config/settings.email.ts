import { custom, durations, int, text } from './setting.js';
import { Invalid } from './setting.js';

/** An smtp:// or smtps:// URL; credentials (if any) ride in it, so it is a secret. */
function smtpUrl(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Invalid('an smtp:// or smtps:// URL');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Invalid('an smtp:// or smtps:// URL');
  if (!url.hostname) throw new Invalid('an smtp:// or smtps:// URL with a host');
  return raw;
}

/** Outgoing email: off until SMTP_URL is set. */
export const EMAIL_SETTINGS = {
  SMTP_URL: custom('the SMTP server mail goes through, `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`; unset, email is off and the routes that need it answer 409 EMAIL_NOT_CONFIGURED', '—', smtpUrl, { secret: true }),
  SMTP_FROM: text('the From of every message, e.g. `Workboard <noreply@example.com>`', null, { default: '`Workboard <noreply@` + the host of `PUBLIC_URL` + `>`' }),
  SMTP_DKIM_DOMAIN: text('with the selector and key, messages are DKIM-signed for this domain', null),
  SMTP_DKIM_SELECTOR: text('the DKIM selector (the DNS record is `<selector>._domainkey.<domain>`)', null),
  SMTP_DKIM_PRIVATE_KEY: text('the DKIM private key, PEM (newlines may be written `\\n`)', null, { secret: true }),
  EMAIL_TIMEOUT_MS: int('an SMTP conversation (connect, send) not done within this time failed and is retried', 30_000, 100),
  // About a day of retries, like webhooks: long enough to outlast a mail server's maintenance.
  EMAIL_RETRY_SCHEDULE: durations('waits before each retry of a temporary SMTP failure (4xx, no connection); when all are spent the message failed', '30s,1m,5m,15m,1h,2h,4h,8h,8h'),
  EMAIL_POLL_MS: int('how often the sender looks for due messages and retries (commits wake it at once)', 1000, 10),
  EMAIL_CONCURRENCY: int('messages one instance sends at the same time', 4, 1),
};
