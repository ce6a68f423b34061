import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';

/**
 * A server under test as its own child process (`node <script>`), so its CPU is read from its own
 * /proc/<pid>/stat and it never shares an event loop with the load client. stdout goes to /dev/null
 * (Chronicle logs a line per request at LOG_LEVEL=info: realistic, and not the bench's business); the tail
 * of stderr is kept for the failure message. Every process started here is killed on exit, also on failure.
 * The service configuration the shell may carry (CHRONICLE_*, DATABASE_URL, PORT, HOST, LOG_LEVEL, NODE_ENV) is
 * not inherited: a bench run measures what the bench sets, nothing else.
 */
const INHERITED_CONFIG = /^(CHRONICLE_.*|DATABASE_URL|PORT|HOST|LOG_LEVEL|NODE_ENV)$/;
const running = new Set<ChildProcess>();

export interface ServiceProcess {
  readonly pid: number;
  readonly name: string;
  stderrTail(): string;
  stop(): Promise<void>;
}

export function startServiceProcess(name: string, script: string, env: Record<string, string>): ServiceProcess {
  // BENCH_SERVICE_NODE_ARGS: flags for the service's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), to profile a phase.
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !INHERITED_CONFIG.test(name))), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  let tail = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => {
    tail = (tail + text).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => {
    running.delete(child);
    resolve();
  }));
  if (child.pid === undefined) throw new Error(`${name}: spawn failed`);
  return {
    pid: child.pid,
    name,
    stderrTail: () => tail,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Kills every service process still running (synchronous: for exit and signal handlers). */
export function killAllServiceProcesses(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** One request outside the measured load (setup, readiness): status and body. */
export function httpCall(port: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path}: timeout`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Polls until `path` answers 200 (or the process exits, or the timeout passes). */
export async function waitForHttp(service: ServiceProcess, port: number, path: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const answer = await httpCall(port, 'GET', path);
      if (answer.status === 200) return;
      last = `${answer.status} ${answer.body.slice(0, 200)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    try {
      process.kill(service.pid, 0);
    } catch {
      throw new Error(`${service.name} exited before ${path} answered 200:\n${service.stderrTail()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${service.name}: ${path} not 200 within ${timeoutMs} ms (last: ${last})\n${service.stderrTail()}`);
}
