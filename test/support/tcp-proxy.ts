import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of the test PostgreSQL, so a test can break the service's database sockets the way
 * a server going away does: `hold()` stops forwarding the service's bytes (a query stays unanswered), and
 * `reset()` ends every connection with a TCP RST (the service's socket sees ECONNRESET). New connections
 * pass through again afterwards, unless `cut()` made it an outage (until `restore()`).
 */
export interface TcpProxy {
  /** The database URL with host and port replaced by the proxy's. */
  readonly url: string;
  hold(): unknown;
  reset(): void;
  /** An outage: every connection is reset, and new ones are cut as soon as they open, until `restore()`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const pairs = new Set<{ client: net.Socket; server: net.Socket }>();
  let holding = false;
  let cut = false;
  const proxy = net.createServer((client) => {
    if (cut) return client.resetAndDestroy();
    const server = net.connect(Number(target.port), target.hostname);
    const pair = { client, server };
    pairs.add(pair);
    client.on('data', (chunk) => {
      if (!holding) server.write(chunk);
    });
    server.on('data', (chunk) => client.write(chunk));
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on('error', drop).on('close', drop);
    server.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as AddressInfo).port);
  const reset = () => {
    holding = false;
    for (const { client, server } of [...pairs]) {
      client.resetAndDestroy();
      server.destroy();
    }
    pairs.clear();
  };
  return {
    url: url.toString(),
    hold: () => (holding = true),
    reset,
    cut() {
      cut = true;
      reset();
    },
    restore: () => (cut = false),
    async close() {
      reset();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
