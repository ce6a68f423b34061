import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '#platform';
import { bearer, KEYS } from '../support/app.js';
import { type ServiceMain, startEmbeddedServiceMain } from '../support/service-main.js';
import { pollUntil } from '../support/poll.js';

// Issue 11 item 7: an embedded PostgreSQL that dies turns ready false and is restarted. The built service
// (global setup builds dist/) runs without DATABASE_URL, so it starts its own cluster in a fresh data folder;
// the test kills that cluster's postmaster with -9, as the OOM killer would.
let dataDir: string;
let main: ServiceMain;
let base: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'chronicle-embedded-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  main = startEmbeddedServiceMain(dataDir, port);
  await until(async () => (await readyStatus()) === 200, 45_000, 'the service to be ready');
}, 60_000);

afterAll(async () => {
  if (main && main.child.exitCode === null) {
    main.child.kill('SIGKILL');
    await main.exited;
  }
  // A postmaster the service did not stop would outlive it; the folder goes with it.
  const pid = postmasterPid();
  if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const readyStatus = () => fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.status, () => 0);
const said = (msg: string) => main.lines.filter((line) => line.msg === msg);

/** Waits for `check` while the service runs (its exit ends the wait at once); a failed wait shows the service's stderr. */
async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const running = async () => {
    if (main.child.exitCode !== null) throw new Error(`the service exited (${main.child.exitCode}) before ${what}`);
    return check();
  };
  try {
    await pollUntil(what, running, Boolean, { timeoutMs, intervalMs: 100 });
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${main.stderr().slice(-4000)}`, { cause: error });
  }
}

/** The postmaster's pid, from the first line of postmaster.pid in the cluster folder. */
function postmasterPid(): number | null {
  try {
    return Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('when the embedded PostgreSQL is killed', () => {
  it('turns ready false, restarts it on the same port, turns ready true again, and serves writes', async () => {
    const start = (sessionId: string) =>
      fetch(`${base}/v1/sessions`, {
        method: 'POST',
        headers: { ...bearer(KEYS.ingest), 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId, createdAt: 1 }),
      }).then((r) => r.status);
    expect(await start('before-kill')).toBe(201);
    const first = postmasterPid();
    expect(first).not.toBeNull();
    process.kill(first!, 'SIGKILL');

    const down = await pollUntil(
      '/health/ready to answer other than 200',
      async () => {
        const res = await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(5_000) }).catch(() => null);
        return res && res.status !== 200 ? { status: res.status, body: await res.json() } : null;
      },
      Boolean,
      { timeoutMs: 10_000, intervalMs: 20 },
    );
    // Usually the database check fails; a restart quick enough to answer `SELECT 1` between the two checks
    // leaves the migrations check as the one that failed. Either way the 503 names what is down.
    expect(down).toMatchObject({ status: 503, body: { code: 'NOT_READY' } });
    const failing = Object.entries((down!.body as { checks: Record<string, { status: string }> }).checks)
      .filter(([, check]) => check.status === 'down')
      .map(([name]) => name);
    expect(failing.length).toBeGreaterThan(0);
    for (const name of failing) expect((down!.body as { detail: string }).detail).toContain(name);

    await until(async () => (await readyStatus()) === 200, 30_000, 'ready again');
    const second = postmasterPid();
    expect(second).not.toBe(first);
    expect(alive(second!)).toBe(true);
    expect(await start('after-restart')).toBe(201);
    const read = await fetch(`${base}/v1/sessions/before-kill`, { headers: bearer(KEYS.read) });
    expect(read.status).toBe(200);

    // Both lines come once the restart is over, in either order (the reachability check may see the new
    // postmaster before the restart supervisor reports it), and reach stdout in ~4 kB blocks every 250 ms.
    await until(() => said('database reachable again').length > 0 && said('embedded PostgreSQL restarted').length > 0, 5_000, 'the recovery log lines');
    expect(said('embedded PostgreSQL exited; restarting it')).toEqual([expect.objectContaining({ level: 50, signal: 'SIGKILL' })]);
    expect(said('embedded PostgreSQL restarted')).toHaveLength(1);
    expect(said('database unreachable')).toHaveLength(1);
    expect(said('database reachable again')).toHaveLength(1);

    // It still stops cleanly, the restarted server with it.
    main.child.kill('SIGTERM');
    expect(await main.exited).toBe(0);
    await pollUntil('the restarted postmaster to stop with the service', () => !alive(second!), Boolean, { timeoutMs: 10_000, intervalMs: 100 });
  }, 60_000);
});
