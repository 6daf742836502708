import { createServer, connect, type Server, type Socket } from 'node:net';

interface Pair {
  client: Socket;
  upstream: Socket;
  /** Bytes held back while the network is stalled, each way. */
  held: { toUpstream: Buffer[]; toClient: Buffer[] };
}

/**
 * A TCP proxy in front of a database that can misbehave on demand, the way networks and poolers
 * do: `stall()` holds every byte (connections stay open, nothing arrives, as in a partition),
 * `resetAll()` cuts every connection with a TCP reset (a blip, a pooler restart).
 */
export class FaultProxy {
  private readonly pairs = new Set<Pair>();
  private server: Server | null = null;
  private stalled = false;
  port = 0;

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
  ) {}

  async listen(): Promise<number> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as { port: number }).port;
    return this.port;
  }

  get connections(): number {
    return this.pairs.size;
  }

  private accept(client: Socket): void {
    const upstream = connect(this.targetPort, this.targetHost);
    const pair: Pair = { client, upstream, held: { toUpstream: [], toClient: [] } };
    this.pairs.add(pair);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (chunk) => (this.stalled ? pair.held.toUpstream.push(chunk) : upstream.write(chunk)));
    upstream.on('data', (chunk) => (this.stalled ? pair.held.toClient.push(chunk) : client.write(chunk)));
  }

  /** Holds every byte, both ways, on open and new connections, until resume(). */
  stall(): void {
    this.stalled = true;
  }

  /** Delivers what was held and forwards again. */
  resume(): void {
    this.stalled = false;
    for (const pair of this.pairs) {
      for (const chunk of pair.held.toUpstream.splice(0)) pair.upstream.write(chunk);
      for (const chunk of pair.held.toClient.splice(0)) pair.client.write(chunk);
    }
  }

  /** Cuts every open connection with a TCP reset, both sides. */
  resetAll(): number {
    const n = this.pairs.size;
    for (const pair of [...this.pairs]) {
      pair.client.resetAndDestroy();
      pair.upstream.resetAndDestroy();
      this.pairs.delete(pair);
    }
    return n;
  }

  async close(): Promise<void> {
    this.resetAll();
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(null)));
  }
}
