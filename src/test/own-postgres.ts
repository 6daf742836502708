import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * A PostgreSQL server of a test's own (initdb in a temporary directory), to stop, kill and restart
 * at will: the shared server on 5432 is never touched. As root, the server runs as `postgres`
 * (PostgreSQL refuses to run as root).
 */
export class OwnPostgres {
  readonly dir: string;
  private child: ChildProcess | null = null;
  private log = '';

  private constructor(
    private readonly bin: string,
    readonly port: number,
  ) {
    this.dir = mkdtempSync(path.join(tmpdir(), 'workboard-own-pg-'));
  }

  /** The directory of PostgreSQL's server programs, or null when none is installed. */
  static binDir(): string | null {
    const root = '/usr/lib/postgresql';
    if (!existsSync(root)) return null;
    const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (existsSync(path.join(root, v, 'bin', 'postgres'))) return path.join(root, v, 'bin');
    return null;
  }

  static async create(port: number): Promise<OwnPostgres> {
    const bin = OwnPostgres.binDir();
    if (!bin) throw new Error('no PostgreSQL server programs under /usr/lib/postgresql');
    const server = new OwnPostgres(bin, port);
    server.own(server.dir);
    server.run('initdb', ['-D', path.join(server.dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    await server.start();
    return server;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  private asPostgres(): { uid?: number; gid?: number } {
    if (process.getuid?.() !== 0) return {};
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  }

  private own(dir: string): void {
    const { uid, gid } = this.asPostgres();
    if (uid !== undefined && gid !== undefined) chownSync(dir, uid, gid);
  }

  private run(program: string, args: string[]): void {
    execFileSync(path.join(this.bin, program), args, { ...this.asPostgres(), stdio: 'pipe' });
  }

  /** Starts the server and waits until it answers (a crash recovery may take a moment). */
  async start(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      this.log = '';
      const child = spawn(
        path.join(this.bin, 'postgres'),
        ['-D', path.join(this.dir, 'data'), '-p', String(this.port), '-k', this.dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=60'],
        { ...this.asPostgres(), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child.stdout!.on('data', (d) => (this.log += d));
      child.stderr!.on('data', (d) => (this.log += d));
      this.child = child;
      if (await this.answers(15_000)) return;
      // After a SIGKILL the old backends may still hold the shared memory for a moment.
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      if (attempt >= 5) throw new Error(`own PostgreSQL did not start: ${this.log}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  private async answers(withinMs: number): Promise<boolean> {
    const deadline = Date.now() + withinMs;
    while (Date.now() < deadline) {
      if (!this.running) return false;
      const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 1000 });
      client.on('error', () => {});
      try {
        await client.connect();
        await client.query('select 1');
        return true;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      } finally {
        await client.end().catch(() => {});
      }
    }
    return false;
  }

  /** SIGKILL of the postmaster (a crash, as in a failover): the next start runs crash recovery. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  /** A fast shutdown (SIGINT): sessions are told 57P01 and the server stops cleanly. */
  async stop(): Promise<void> {
    await this.signal('SIGINT');
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await gone;
  }

  async destroy(): Promise<void> {
    await this.stop().catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }
}
