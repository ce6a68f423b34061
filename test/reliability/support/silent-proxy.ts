import net from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that can go silent, as a database host behind a partition does: `silence()`
 * cuts every connection, then accepts new ones and never says a word (no reset, no refusal); `freeze()` leaves
 * the connections open but lets nothing through either way; `resume()` forwards again. A refused connection fails
 * at once; a silent one only fails when the client stops waiting.
 */
export class SilentProxy {
  private readonly sockets = new Set<net.Socket>();
  private readonly pairs = new Set<[net.Socket, net.Socket]>();
  private silent = false;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  static async start(target: { host: string; port: number }): Promise<SilentProxy> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new SilentProxy(server, (server.address() as net.AddressInfo).port, target);
  }

  /** Cuts every connection; from now on a new one is accepted and held without an answer. */
  silence(): void {
    this.silent = true;
    this.cutAll();
  }

  /** Lets nothing more through on the open connections (they stay open), and answers no new one. */
  freeze(): void {
    this.silent = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /**
   * Forwards new connections again and leaves the frozen ones as they are, open and dead (a partition healed
   * after the server gave up on the connections it had: nothing on them is ever heard again).
   */
  heal(): void {
    this.silent = false;
  }

  /** Forwards again (the connections held silent are cut: their clients gave up on them). */
  resume(): void {
    this.silent = false;
    this.cutAll();
  }

  async close(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    this.track(client);
    if (this.silent) return;
    const upstream = this.track(net.connect(this.target.port, this.target.host));
    client.pipe(upstream);
    upstream.pipe(client);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    this.pairs.add(pair);
    client.on('close', () => (upstream.destroy(), this.pairs.delete(pair)));
    upstream.on('close', () => (client.destroy(), this.pairs.delete(pair)));
  }

  private track(socket: net.Socket): net.Socket {
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => this.sockets.delete(socket));
    return socket;
  }

  private cutAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    this.pairs.clear();
  }
}
