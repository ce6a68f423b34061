import { EventEmitter } from 'node:events';
import { pollUntil } from '../../../../test/support/poll.js';
import { ServerSupervisor, type SupervisorOptions } from './server-supervisor.js';

class FakeServer extends EventEmitter {
  die(signal: NodeJS.Signals = 'SIGKILL') {
    this.emit('exit', null, signal);
  }
}

/** A server whose starts succeed or fail as `outcomes` says (true = started), the last outcome repeating. */
function harness(outcomes: boolean[], options: SupervisorOptions = {}) {
  const servers: FakeServer[] = [];
  const events: string[] = [];
  let starts = 0;
  const supervisor = new ServerSupervisor(
    async () => {
      const ok = outcomes[Math.min(starts, outcomes.length - 1)];
      starts += 1;
      if (!ok) throw new Error(`start ${starts} failed`);
      const server = new FakeServer();
      servers.push(server);
      return server;
    },
    {
      firstDelayMs: 5,
      maxDelayMs: 20,
      onExit: (exit) => events.push(`exit ${exit.signal}`),
      onRestarted: (attempts) => events.push(`restarted after ${attempts}`),
      onGiveUp: (error) => events.push(`gave up: ${error.message}`),
      ...options,
    },
  );
  return { supervisor, servers, events, starts: () => starts };
}

describe('the server supervisor', () => {
  it('restarts a server that exits by itself, and watches the new one', async () => {
    const h = harness([true]);
    await h.supervisor.begin();
    h.servers[0].die();
    await pollUntil('a second server', () => h.servers.length === 2);
    h.servers[1].die('SIGSEGV');
    await pollUntil('a third server', () => h.servers.length === 3);
    expect(h.events).toEqual(['exit SIGKILL', 'restarted after 1', 'exit SIGSEGV', 'restarted after 1']);
  });

  it('retries a restart that fails until one succeeds', async () => {
    const h = harness([true, false, false, true]);
    await h.supervisor.begin();
    h.servers[0].die();
    await pollUntil('two supervisor events', () => h.events.length === 2);
    expect(h.events).toEqual(['exit SIGKILL', 'restarted after 3']);
  });

  it('gives up with the last error once restarts have failed for the time allowed', async () => {
    let gaveUpAt = 0;
    let lastError = '';
    const onGiveUp = (error: Error) => {
      gaveUpAt = Date.now();
      lastError = error.message;
    };
    const h = harness([true, false], { restartTimeoutMs: 60, onGiveUp });
    await h.supervisor.begin();
    const diedAt = Date.now();
    h.servers[0].die();
    await pollUntil('giving up', () => gaveUpAt > 0);
    // How many attempts fit in 60 ms depends on how late a loaded machine fires timers, so the test checks
    // the time instead: no give-up before the deadline less one (capped, 20 ms) delay, and at least one retry.
    expect(lastError).toBe(`start ${h.starts()} failed`);
    expect(gaveUpAt - diedAt).toBeGreaterThanOrEqual(60 - 20);
    expect(h.starts()).toBeGreaterThanOrEqual(2);
  });

  it('does not restart a server it was told to stop', async () => {
    const h = harness([true]);
    await h.supervisor.begin();
    await h.supervisor.stop();
    h.servers[0].die('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect([h.events, h.starts()]).toEqual([[], 1]);
  });

  it('leaves a failed first start to the caller', async () => {
    const h = harness([false]);
    await expect(h.supervisor.begin()).rejects.toThrow('start 1 failed');
    expect(h.events).toEqual([]);
  });
});
