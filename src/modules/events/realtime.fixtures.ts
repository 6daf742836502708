import WebSocket from 'ws';
import type { FastifyInstance } from 'fastify';
import type { EventEnvelope } from '../../platform/events.js';

export type Envelope = EventEnvelope & { payload: Record<string, unknown> };

type Frame = Record<string, unknown> & { type: string };

/** Polls until `check` passes or the time is up (then the last failure is thrown); generous, since CI runs test files side by side on two cores. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

export async function listen(app: FastifyInstance): Promise<string> {
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return address.replace('http://', '');
}

/** A WebSocket test client that keeps every frame it gets. */
export class WsClient {
  readonly frames: Frame[] = [];
  closed: { code: number; reason: string } | null = null;
  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.frames.push(JSON.parse(data.toString()) as Frame));
    socket.on('close', (code, reason) => (this.closed = { code, reason: reason.toString() }));
  }

  static async open(host: string, headers: Record<string, string> = {}): Promise<WsClient> {
    const socket = new WebSocket(`ws://${host}/events/ws`, { headers });
    const client = new WsClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return client;
  }

  send(frame: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(frame));
  }

  /** Sends a frame and waits for the first frame of the given type after it. */
  async request(frame: Record<string, unknown>, answer: string): Promise<Frame> {
    const from = this.frames.length;
    this.send(frame);
    return eventually(() => {
      const found = this.frames.slice(from).find((f) => f.type === answer);
      if (!found) throw new Error(`no ${answer} frame; got ${JSON.stringify(this.frames.slice(from))}`);
      return found;
    });
  }

  async ready(): Promise<Frame> {
    return eventually(() => {
      const found = this.frames.find((f) => f.type === 'ready');
      if (!found) throw new Error(`not ready: ${JSON.stringify(this.frames)} ${JSON.stringify(this.closed)}`);
      return found;
    });
  }

  /** Event envelopes received (frames with a numeric id). */
  get events(): Envelope[] {
    return this.frames.filter((f) => typeof f.id === 'number') as unknown as Envelope[];
  }

  close(): void {
    this.socket.close();
  }
}

/** A Server-Sent Events test client over fetch. */
export class SseClient {
  readonly events: Envelope[] = [];
  readonly controls: Array<{ event: string; data: unknown }> = [];
  private readonly abort = new AbortController();
  private constructor(readonly status: number) {}

  static async open(host: string, path: string, headers: Record<string, string>): Promise<SseClient> {
    const client = new SseClient(0);
    const res = await fetch(`http://${host}${path}`, { headers, signal: client.abort.signal });
    (client as { status: number }).status = res.status;
    if (res.status !== 200 || !res.body) return client;
    void client.read(res.body).catch(() => {});
    await eventually(() => {
      if (!client.controls.some((c) => c.event === 'ready')) throw new Error('SSE stream not ready');
    });
    return client;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = new Map<string, string>();
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const i = line.indexOf(':');
          if (i > 0) fields.set(line.slice(0, i), line.slice(i + 1).trimStart());
        }
        const data = fields.get('data');
        if (data === undefined) continue;
        if (fields.has('id')) this.events.push(JSON.parse(data) as Envelope);
        else this.controls.push({ event: fields.get('event') ?? 'message', data: JSON.parse(data) });
      }
    }
  }

  close(): void {
    this.abort.abort();
  }
}
