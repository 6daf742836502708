import type { Envelope } from '../api/client';

type ServerFrame =
  | { type: 'ready'; lastEventId: number }
  | { type: 'resync'; lastEventId: number }
  | { type: 'resumed' | 'subscribed' | 'unsubscribed' | 'pong' | 'error' }
  | Envelope;

export type LiveStatus = 'connecting' | 'live' | 'offline';

const isEnvelope = (f: ServerFrame): f is Envelope => typeof (f as Envelope).id === 'number' && 'payload' in f;

/**
 * The tab's one WebSocket on the real-time stream. It authenticates with a first frame (browsers
 * cannot set headers on an upgrade), subscribes to what the user may read in the organization and,
 * after a reconnect, resumes from the last event id it saw. The id is kept in memory only: a page
 * load fetches current state, and replaying older events over it would only flicker. `resync`
 * (the gap is past the replay window) tells the app to reload its state.
 */
export class LiveStream {
  private ws: WebSocket | null = null;
  private retry = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = true;
  private readonly listeners = new Set<(e: Envelope) => void>();
  private readonly statusListeners = new Set<(s: LiveStatus) => void>();
  status: LiveStatus = 'offline';
  lastEventId = 0;

  constructor(
    private readonly session: () => string | null,
    private readonly onResync: () => void,
    private readonly socket: (url: string) => WebSocket = (url) => new WebSocket(url),
  ) {}

  onEvent(fn: (e: Envelope) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  onStatus(fn: (s: LiveStatus) => void): () => void {
    this.statusListeners.add(fn);
    return () => this.statusListeners.delete(fn);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close(1000);
    this.ws = null;
    this.setStatus('offline');
  }

  /** After an organization switch: what this tab saw belongs to another organization's log. */
  restart(): void {
    this.stop();
    this.lastEventId = 0;
    this.start();
  }

  /** The network is back: reconnect now rather than at the end of the back-off; the stream resumes from its last event. */
  reconnectNow(): void {
    if (this.stopped || this.ws) return;
    clearTimeout(this.timer);
    this.retry = 0;
    this.open();
  }

  private setStatus(s: LiveStatus) {
    this.status = s;
    for (const fn of this.statusListeners) fn(s);
  }

  private open() {
    const credential = this.session();
    if (!credential || this.stopped) return;
    this.setStatus('connecting');
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/events/ws`;
    const ws = this.socket(url);
    this.ws = ws;
    ws.onopen = () => ws.send(JSON.stringify({ type: 'auth', session: credential }));
    ws.onmessage = (m) => this.handle(ws, JSON.parse(String(m.data)) as ServerFrame);
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.setStatus('offline');
      // 4401: the session is gone; the next API call signs the user out.
      if (this.stopped || e.code === 4401) return;
      const delay = Math.min(10_000, 250 * 2 ** this.retry++) * (0.5 + Math.random() / 2);
      this.timer = setTimeout(() => this.open(), delay);
    };
  }

  private handle(ws: WebSocket, frame: ServerFrame) {
    if (isEnvelope(frame)) {
      if (frame.id <= this.lastEventId) return;
      this.lastEventId = frame.id;
      for (const fn of this.listeners) fn(frame);
      return;
    }
    if (frame.type === 'ready') {
      this.retry = 0;
      const resumeFrom = this.lastEventId;
      ws.send(JSON.stringify({ type: 'subscribe' }));
      if (resumeFrom > 0) ws.send(JSON.stringify({ type: 'resume', lastEventId: resumeFrom }));
      else this.lastEventId = frame.lastEventId;
      this.setStatus('live');
    } else if (frame.type === 'resync') {
      this.lastEventId = frame.lastEventId;
      this.onResync();
    }
  }
}
