import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the registry needs of a transport (the SDK's, loaded lazily). */
export interface SessionTransport {
  handleRequest(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void>;
}

export interface McpSession {
  id: string;
  /** The credential (its SHA-256) that opened it: another credential cannot use the session. */
  credentialHash: string;
  userId: number;
  organizationId: number;
  transport: SessionTransport;
  lastSeen: number;
  clientName(): string;
  close(): Promise<void>;
}

const IDLE_MS = 30 * 60_000;
// Bounds the memory one credential can pin with sessions it never ends.
const PER_CREDENTIAL = 16;

/**
 * Live sessions of this process. Sessions live in memory: after a restart (or on another instance)
 * an id is unknown and the client is told to start a new session.
 */
export class McpSessions {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(idleMs = IDLE_MS) {
    this.sweeper = setInterval(() => {
      const cutoff = Date.now() - idleMs;
      for (const s of this.sessions.values()) if (s.lastSeen < cutoff) void s.close();
    }, Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  add(session: McpSession): void {
    const mine = [...this.sessions.values()].filter((s) => s.credentialHash === session.credentialHash);
    if (mine.length >= PER_CREDENTIAL) void mine.sort((a, b) => a.lastSeen - b.lastSeen)[0]!.close();
    this.sessions.set(session.id, session);
  }

  remove(id: string): void {
    this.sessions.delete(id);
  }

  /** The session, if it exists and belongs to this credential. */
  get(id: string, credentialHash: string): McpSession | null {
    const session = this.sessions.get(id);
    if (!session || session.credentialHash !== credentialHash) return null;
    session.lastSeen = Date.now();
    return session;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((s) => s.close()));
  }
}
