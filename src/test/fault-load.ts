/**
 * The load a database-fault test runs against a service process: writers creating tasks in a
 * loop, every answer timed and kept, and a Server-Sent Events client keeping every event id it
 * receives. The ledger is what the service acknowledged; the test then checks none of it was lost.
 */

export interface Answer {
  status: number | 'dropped';
  code?: string;
  retryAfter?: string | null;
  startedAt: number;
  ms: number;
}

export interface Session {
  base: string;
  session: string;
  organizationId: number;
  stageId: number;
}

export async function call(base: string, method: string, url: string, body?: unknown, session?: string, timeoutMs = 60_000) {
  const res = await fetch(base + url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(session ? { 'service-session': session } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, headers: res.headers, body: (await res.json().catch(() => null)) as Record<string, any> };
}

/** Signs up and makes a space, a project and a column to write tasks into. */
export async function signUp(base: string, tag: string): Promise<Session> {
  const reg = await call(base, 'POST', '/auth/register', { email: `${tag}-${Date.now()}@example.test`, password: 'a long password', name: 'Fault' });
  if (reg.status !== 201) throw new Error(`register answered ${reg.status}: ${JSON.stringify(reg.body)}`);
  const session = reg.body.session as string;
  const space = await call(base, 'POST', '/spaces', { name: 'Faults' }, session);
  const project = await call(base, 'POST', '/projects', { spaceId: space.body.id, name: 'Faults' }, session);
  const stage = await call(base, 'POST', `/projects/${project.body.id}/stages`, { name: 'Todo', order: 0 }, session);
  if (stage.status !== 201) throw new Error(`stage answered ${stage.status}`);
  return { base, session, organizationId: reg.body.organization.id, stageId: stage.body.id };
}

export class Load {
  readonly acknowledged: number[] = [];
  readonly answers: Answer[] = [];
  private stopped = false;
  private running: Promise<void>[] = [];

  constructor(
    private readonly s: Session,
    private readonly writers = 4,
  ) {}

  start(): this {
    this.running = Array.from({ length: this.writers }, (_, w) => this.writer(w));
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.running);
  }

  /** Answers to requests started at or after `from` (and before `to`). */
  since(from: number, to = Infinity): Answer[] {
    return this.answers.filter((a) => a.startedAt >= from && a.startedAt < to);
  }

  /** Resolves once `n` more writes than now were acknowledged; answers when the first of them was. */
  async acknowledgedMore(n: number, withinMs = 30_000): Promise<number> {
    const target = this.acknowledged.length + n;
    const deadline = Date.now() + withinMs;
    let first = 0;
    const seen = this.answers.length;
    while (this.acknowledged.length < target) {
      if (Date.now() > deadline) throw new Error(`only ${this.acknowledged.length} of ${target} writes acknowledged; last answers ${JSON.stringify(this.answers.slice(-5))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const a of this.answers.slice(seen)) if (a.status === 201 && !first) first = a.startedAt + a.ms;
    return first || Date.now();
  }

  private async writer(w: number): Promise<void> {
    for (let i = 0; !this.stopped; i++) {
      const startedAt = Date.now();
      try {
        const res = await call(this.s.base, 'POST', '/tasks', { name: `w${w} #${i}`, stageId: this.s.stageId }, this.s.session);
        const ms = Date.now() - startedAt;
        this.answers.push({ status: res.status, code: res.body?.code, retryAfter: res.headers.get('retry-after'), startedAt, ms });
        if (res.status === 201) this.acknowledged.push(Number(res.body.task.id));
        else await new Promise((r) => setTimeout(r, 100));
      } catch {
        this.answers.push({ status: 'dropped', startedAt, ms: Date.now() - startedAt });
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/** A Server-Sent Events client of `/events`: every event id, in the order received. */
export class EventStream {
  readonly ids: number[] = [];
  private readonly controller = new AbortController();
  private done: Promise<void> = Promise.resolve();

  async open(s: Session): Promise<void> {
    const res = await fetch(`${s.base}/events`, { headers: { 'service-session': s.session }, signal: this.controller.signal });
    if (res.status !== 200 || !res.body) throw new Error(`/events answered ${res.status}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let ready!: () => void;
    const isReady = new Promise<void>((r) => (ready = r));
    this.done = (async () => {
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += value;
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            if (/^event: ready$/m.test(frame)) ready();
            const id = /^id: (\d+)$/m.exec(frame);
            if (id) this.ids.push(Number(id[1]));
          }
        }
      } catch {
        // aborted by close()
      }
    })();
    await isReady;
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.done;
  }
}
