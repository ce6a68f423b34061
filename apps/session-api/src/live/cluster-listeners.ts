import { Logger } from '@nestjs/common';
import pg from 'pg';
import { atNode, type NodeAddress } from '#event-store';
import { NOTIFY_CHANNEL } from '#read-models';
import { checkListening, DEFAULT_LISTEN_CHECK_MS } from './listen-check.js';

/** How often the cluster's node list is read again (a worker added later is heard from within this). */
const NODES_REFRESH_MS = 30_000;
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5000;
/** How long a replica's start waits for its first LISTEN on each other node. */
const FIRST_LISTEN_WAIT_MS = 5000;

/**
 * On Citus an append notifies on the worker that ran it (the routed append), and PostgreSQL delivers a NOTIFY
 * only to listeners on that node: a replica connected to one node hears the others' appends through a LISTEN
 * connection to each other node, made here with the pool's own settings and each node's address from
 * `pg_dist_node`. Each connection reconnects on its own with a capped backoff; after a reconnect the hub
 * re-checks its subscribers (notifications sent in the gap are gone). The pool's own node is the hub's.
 */
export class ClusterListeners {
  private readonly logger = new Logger(ClusterListeners.name);
  private readonly listeners = new Map<string, NodeListener>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly onNotification: (payload: string) => void,
    private readonly onReconnected: () => void,
    /** How often each LISTEN connection is checked (`checkListening`). */
    private readonly checkMs: number = DEFAULT_LISTEN_CHECK_MS,
  ) {}

  /**
   * Listens on every other node before it answers (so the replica is ready only once it hears them all), waiting
   * at most FIRST_LISTEN_WAIT_MS for a node that does not answer: that one keeps reconnecting on its own.
   */
  async start(): Promise<void> {
    const first = await this.refresh().catch((error: unknown) => {
      this.logger.warn(`cluster nodes not read: ${(error as Error).message}`);
      return [];
    });
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      Promise.all(first.map((attempt) => attempt.catch(() => undefined))).then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), FIRST_LISTEN_WAIT_MS))),
    ]);
    clearTimeout(timer);
    if (!waited) this.logger.warn(`not every cluster node's live listener was up within ${FIRST_LISTEN_WAIT_MS} ms; they keep reconnecting`);
    this.timer = setInterval(() => {
      this.refresh().catch((error: unknown) => this.logger.warn(`cluster nodes not read: ${(error as Error).message}`));
    }, NODES_REFRESH_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.all([...this.listeners.values()].map((listener) => listener.stop()));
    this.listeners.clear();
  }

  /**
   * Every other active primary node of the cluster gets a listener; a node gone from the list loses its own. The
   * answer: each new listener's first attempt (settled once it listens, or once that attempt failed).
   */
  private async refresh(): Promise<Promise<void>[]> {
    const result = await this.pool.query<{ nodename: string; nodeport: number }>(
      `SELECT n.nodename, n.nodeport FROM pg_dist_node n
        WHERE n.isactive AND n.noderole = 'primary' AND n.groupid <> (SELECT groupid FROM pg_dist_local_group)`,
    );
    if (this.stopped) return [];
    const wanted = new Map(result.rows.map((row) => [`${row.nodename}:${row.nodeport}`, { host: row.nodename, port: row.nodeport }]));
    for (const [key, listener] of this.listeners) {
      if (!wanted.has(key)) {
        this.listeners.delete(key);
        void listener.stop();
      }
    }
    const started: Promise<void>[] = [];
    for (const [key, address] of wanted) {
      if (this.listeners.has(key)) continue;
      const listener = new NodeListener(this.pool, address, this.onNotification, this.onReconnected, this.logger, this.checkMs);
      this.listeners.set(key, listener);
      started.push(listener.start());
    }
    return started;
  }
}

/** One LISTEN connection to one node, kept open. */
class NodeListener {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopChecks: () => void = () => undefined;
  private delay = RECONNECT_FIRST_MS;
  private lost = false;
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly address: NodeAddress,
    private readonly onNotification: (payload: string) => void,
    private readonly onReconnected: () => void,
    private readonly logger: Logger,
    private readonly checkMs: number,
  ) {}

  /** The first attempt: settled once this listens, or once it failed (it then reconnects on its own). */
  start(): Promise<void> {
    return this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopChecks();
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client(atNode(this.pool.options, this.address) as pg.ClientConfig);
    const drop = (error: Error) => {
      if (this.client !== client) return;
      this.client = null;
      this.stopChecks();
      client.end().catch(() => undefined);
      if (this.stopped) return;
      if (!this.lost) this.logger.warn(`live listener on ${this.address.host}:${this.address.port} lost: ${error.message}; reconnecting`);
      this.lost = true;
      this.schedule();
    };
    client.on('error', drop);
    client.on('end', () => drop(new Error('connection ended')));
    client.on('notification', (message) => this.onNotification(message.payload ?? ''));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      if (this.client === client) this.stopChecks = checkListening(client, this.checkMs);
      this.delay = RECONNECT_FIRST_MS;
      if (this.lost) {
        this.lost = false;
        this.logger.log(`live listener on ${this.address.host}:${this.address.port} reconnected`);
        this.onReconnected();
      }
    } catch (error) {
      drop(error as Error);
    }
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    const delay = this.delay;
    this.delay = Math.min(delay * 2, RECONNECT_MAX_MS);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, delay);
    this.timer.unref();
  }
}
