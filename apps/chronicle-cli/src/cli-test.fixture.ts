import { readdirSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import pg from 'pg';
import { createSessionEventStore } from '#read-models';
import { parseSessionEvent, type SessionEvent, toSessionStreamId } from '#domain';
import type { CliIo } from './cli-io.js';
import { TEST_MASTER_KEY } from '../../../test/support/master-key.js';
import { runCli } from './cli.runner.js';

/** Test support only (specs of this folder): in-memory stdout/stderr and the golden sessions of libs/domain. */
export class Collector extends Writable {
  private readonly chunks: string[] = [];

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.chunks.push(chunk.toString());
    done();
  }

  get text(): string {
    return this.chunks.join('');
  }
}

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one command in-process with the environment `env`, capturing both streams. */
export async function runWith(env: NodeJS.ProcessEnv, argv: readonly string[], cwd?: string): Promise<CliRun> {
  const stdout = new Collector();
  const stderr = new Collector();
  const io: CliIo = { stdout, stderr, env, progressTty: false, cwd };
  const code = await runCli(argv, io);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Runs one command in-process against `databaseUrl`, capturing both streams. */
export const runIn = (databaseUrl: string, argv: readonly string[], cwd?: string): Promise<CliRun> =>
  runWith({ DATABASE_URL: databaseUrl, CHRONICLE_MASTER_KEY: TEST_MASTER_KEY }, argv, cwd);

const goldenDir = new URL('../../../libs/domain/src/session/golden/', import.meta.url);

export const goldenNames = (): string[] =>
  readdirSync(goldenDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

export function goldenEvents(name: string): SessionEvent[] {
  const raw = JSON.parse(readFileSync(new URL(`${name}/given.events.json`, goldenDir), 'utf8')) as unknown[];
  return raw.map(parseSessionEvent);
}

/** Appends a golden session under `sessionId` in a few batches (several transactions, as real traffic). */
export async function appendGolden(databaseUrl: string, name: string, sessionId: string): Promise<SessionEvent[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const store = await createSessionEventStore(pool);
  const events = goldenEvents(name).map((event, index) =>
    index === 0 && event.type === 'SessionStarted' ? { ...event, data: { ...event.data, sessionId } } : event,
  ) as SessionEvent[];
  try {
    for (let i = 0; i < events.length; i += 7) {
      const batch = events.slice(i, i + 7).map(({ type, data }) => ({ type, data, metadata: { batch: i } }));
      await store.append(toSessionStreamId(sessionId), batch, { expectedVersion: i });
    }
  } finally {
    await store.close();
  }
  return events;
}
