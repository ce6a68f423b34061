/** What the supervisor watches: a server process that tells when it exits. */
export interface SupervisedProcess {
  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
}

export interface ServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface SupervisorHooks {
  /** The server exited by itself (a crash, a kill): a restart follows. */
  readonly onExit?: (exit: ServerExit) => void;
  readonly onRestarted?: (attempts: number) => void;
  /** No restart succeeded within the time allowed: the service cannot go on without its database. */
  readonly onGiveUp?: (error: Error) => void;
}

export interface SupervisorOptions extends SupervisorHooks {
  /** How long restarts are tried after an exit (default 30 s). */
  readonly restartTimeoutMs?: number;
  readonly firstDelayMs?: number;
  readonly maxDelayMs?: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Keeps a server process running: when it exits without being told to, it is started again, retried with a
 * doubling delay (an embedded PostgreSQL killed with -9 leaves backends that take a moment to notice, and a
 * new postmaster refuses to start while they hold its shared memory), and given up on after
 * `restartTimeoutMs`. `start` answers the running process once the server accepts connections.
 */
export class ServerSupervisor {
  private stopping = false;
  private restarting: Promise<void> | null = null;

  constructor(
    private readonly start: () => Promise<SupervisedProcess>,
    private readonly options: SupervisorOptions = {},
  ) {}

  /** Starts the server the first time (a failure here is the caller's) and watches it from then on. */
  async begin(): Promise<void> {
    this.watch(await this.start());
  }

  /** No restart from now on; answers once a restart under way has ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.restarting;
  }

  private watch(server: SupervisedProcess): void {
    server.once('exit', (code, signal) => {
      if (this.stopping) return;
      this.options.onExit?.({ code, signal });
      this.restarting = this.restart().finally(() => (this.restarting = null));
    });
  }

  private async restart(): Promise<void> {
    const deadline = Date.now() + (this.options.restartTimeoutMs ?? 30_000);
    let delay = this.options.firstDelayMs ?? 200;
    let lastError: Error = new Error('not started');
    for (let attempt = 1; !this.stopping; attempt += 1) {
      await pause(delay);
      if (this.stopping) return;
      try {
        const server = await this.start();
        this.watch(server);
        this.options.onRestarted?.(attempt);
        return;
      } catch (error) {
        lastError = error instanceof Error ? error : new Error(String(error ?? 'the server exited while starting'));
      }
      if (Date.now() + delay > deadline) break;
      delay = Math.min(delay * 2, this.options.maxDelayMs ?? 2000);
    }
    if (!this.stopping) this.options.onGiveUp?.(lastError);
  }
}
