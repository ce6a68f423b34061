import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWith } from './cli-test.fixture.js';

/**
 * Issue 11 item 10: a command on the embedded PostgreSQL (no DATABASE_URL) that creates the cluster and then
 * writes nothing, a refused import above all, leaves no empty cluster behind; one that writes keeps it.
 */
const root = mkdtempSync(join(tmpdir(), 'chronicle-embedded-cli-'));
// Each case initialises and starts a real cluster (a few seconds on a busy machine).
const SLOW = 120_000;

const sidecars = (name: string, files: Record<string, unknown>): string => {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, body] of Object.entries(files)) writeFileSync(join(dir, file), JSON.stringify(body));
  return dir;
};
const session = (sessionId: string) => ({ session_id: sessionId, title: 'Imported', created_at: 1_800_000_000, messages: [{ role: 'user', content: 'hello', timestamp: 1_800_000_001 }] });

describe('the embedded cluster of a CLI command', () => {
  it('is removed, data folder and all, when the import it was created for is refused', async () => {
    const dataDir = join(root, 'refused');
    const refusedOnly = sidecars('refused-sessions', { 'bad id.json': session('bad id') });
    const run = await runWith({ CHRONICLE_DATA_DIR: dataDir }, ['import-hermes', '--sessions', refusedOnly]);
    expect(run.stdout).toContain('refused');
    expect(run.code).toBe(1);
    expect(existsSync(dataDir)).toBe(false);
  }, SLOW);

  it('is removed from a data folder that existed, leaving what was there before', async () => {
    const dataDir = join(root, 'kept-folder');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'api-keys'), 'the service wrote this\n');
    const missing = await runWith({ CHRONICLE_DATA_DIR: dataDir }, ['import', join(root, 'no-such-file.ndjson')]);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot read') });
    expect(readdirSync(dataDir)).toEqual(['api-keys']);
  }, SLOW);

  it('is kept when the command wrote events, and used again by the next one', async () => {
    const dataDir = join(root, 'written');
    const good = sidecars('good-sessions', { 'emb-1.json': session('emb-1') });
    const run = await runWith({ CHRONICLE_DATA_DIR: dataDir }, ['import-hermes', '--sessions', good, '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).sessions).toMatchObject({ imported: 1, refused: 0 });
    expect(existsSync(join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
    const replay = await runWith({ CHRONICLE_DATA_DIR: dataDir }, ['replay', 'emb-1', '--json']);
    expect(JSON.parse(replay.stdout).messages).toEqual([expect.objectContaining({ role: 'user', content: 'hello' })]);
  }, SLOW);
});
