import type { Transporter } from 'nodemailer';
import type { EmailConfig } from '../../config.js';

/** One message as the outbox hands it to SMTP. */
export interface Envelope {
  /** The Message-ID, without angle brackets. */
  messageId: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

export type SendResult = { ok: true } | { ok: false; temporary: boolean; reason: string };

export interface MailTransport {
  send(message: Envelope): Promise<SendResult>;
  close(): void;
}

/**
 * A failure's class: an SMTP 5xx answer is permanent (the server refuses this message: retrying
 * gets the same answer); any other failure (a 4xx, no connection, a timeout, a dropped connection)
 * may pass, so it is retried. The reason names the code and the server's words, never credentials.
 */
export function classify(err: unknown): SendResult {
  const e = err as { responseCode?: number; code?: string; response?: string; message?: string };
  const code = typeof e.responseCode === 'number' ? e.responseCode : null;
  const said = (e.response ?? e.message ?? 'unknown error').replace(/\s+/g, ' ').slice(0, 500);
  const reason = code !== null ? `SMTP ${code}: ${said}` : `${e.code ?? 'ERROR'}: ${said}`;
  return { ok: false, temporary: code === null || code < 500, reason };
}

/** SMTP through nodemailer, one connection per message (no pool to leak across a server's restart). */
export function smtpTransport(config: EmailConfig & { smtpUrl: string }): MailTransport {
  // nodemailer loads with the first message, not at every start (issue 42: what a start holds).
  let transporter: Promise<Transporter> | null = null;
  const options = {
    url: config.smtpUrl,
    connectionTimeout: config.timeoutMs,
    greetingTimeout: config.timeoutMs,
    socketTimeout: config.timeoutMs,
    ...(config.dkim ? { dkim: config.dkim } : {}),
  };
  const open = () => (transporter ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(options, { from: config.from })));
  return {
    async send(m) {
      try {
        await (await open()).sendMail({ to: m.to, subject: m.subject, text: m.text, html: m.html, messageId: `<${m.messageId}>`, headers: m.headers });
        return { ok: true };
      } catch (err) {
        return classify(err);
      }
    },
    close: () => void transporter?.then((t) => t.close()),
  };
}
