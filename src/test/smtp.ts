import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * Test-only: a real SMTP server (the smtp-server package) on 127.0.0.1 that keeps what it accepts,
 * parsed by mailparser. It can refuse the next messages with a code (421, 550), and be stopped and
 * started again on the same port (connection refused meanwhile).
 */
export class TestSmtp {
  readonly received: ParsedMail[] = [];
  /** Codes the next messages are refused with, in order (one per message). */
  private refusals: number[] = [];
  private server: SMTPServer | null = null;
  port = 0;
  /** Messages `to()` leaves out (received all the same): a test about one kind is not told of another. */
  hidden: (mail: ParsedMail) => boolean = () => false;

  async start(): Promise<this> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, _session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const code = this.refusals.shift();
          if (code !== undefined) return callback(Object.assign(new Error(code >= 500 ? 'mailbox unavailable' : 'try again later'), { responseCode: code }));
          simpleParser(Buffer.concat(chunks))
            .then((mail) => {
              this.received.push(mail);
              callback();
            })
            .catch(callback);
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as { port: number }).port;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  refuseNext(...codes: number[]): void {
    this.refusals.push(...codes);
  }

  /** Messages to this address, oldest first. */
  to(address: string): ParsedMail[] {
    return this.received.filter((m) => !this.hidden(m) && (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).some((t) => t.value.some((v) => v.address?.toLowerCase() === address.toLowerCase())));
  }
}

/** The first http(s) link in a message's text that starts with `prefix`. */
export function linkIn(mail: ParsedMail, prefix: string): string {
  const found = (mail.text ?? '').split(/\s+/).find((w) => w.startsWith(prefix));
  if (!found) throw new Error(`no link starting ${prefix} in: ${mail.text}`);
  return found;
}
