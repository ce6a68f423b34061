import net from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that can go silent, as a database host behind a partition does: `silence()`
 * cuts every connection, then accepts new ones and never says a word (no reset, no refusal); `resume()` forwards
 * again. A refused connection fails at once; a silent one only fails when the client stops waiting.
 */
export class SilentProxy {
  private readonly sockets = new Set<net.Socket>();
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
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
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
  }
}
