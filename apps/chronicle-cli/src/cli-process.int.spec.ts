import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { appendGolden, goldenNames } from './cli-test.fixture.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'chronicle-bin-'));
// Each child process boots node, pg and the migrations check (about a second).
const SLOW = 60_000;
let source: TestDatabase;
let target: TestDatabase;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node bin/chronicle.mjs …` as a real child process (the npm `bin` entry). */
function chronicle(args: string[], env: Record<string, string>): Promise<Result> {
  return new Promise((resolve) => {
    const childEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ...env };
    execFile(process.execPath, ['bin/chronicle.mjs', ...args], { cwd: root, env: childEnv, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  // No build here: the bin entry rebuilds dist/ itself when a source is newer (the first test proves it).
  [source, target] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  await appendGolden(source.url, goldenNames()[0], 'proc');
}, SLOW);
afterAll(async () => {
  await Promise.all([source.drop(), target.drop()]);
});

describe('node bin/chronicle.mjs', () => {
  it('never runs a stale dist/: it rebuilds first, saying so in one line on stderr', async () => {
    // A build older than its source, whose code is not the source's: run as it is, it would print this.
    const built = join(root, 'dist/apps/chronicle-cli/src/cli-help.text.js');
    mkdirSync(join(built, '..'), { recursive: true });
    writeFileSync(built, "export const COMMAND_HELP = {};\nexport const mainHelp = () => 'STALE BUILD\\n';\nexport const commandHelp = mainHelp;\n");
    utimesSync(built, new Date(0), new Date(0));
    const first = await chronicle(['--help'], {});
    expect(first).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: chronicle <command>') });
    expect(first.stdout).not.toContain('STALE BUILD');
    expect(first.stderr).toBe('chronicle: rebuilding dist/ (apps/chronicle-cli/src/cli-help.text.ts changed since the last build)\n');
    expect(await chronicle(['--help'], {})).toMatchObject({ code: 0, stderr: '' });
  }, SLOW);

  it('exports to stdout, imports the file into an empty database, and replays it there identically', async () => {
    const exported = await chronicle(['export'], { DATABASE_URL: source.url });
    expect(exported).toMatchObject({ code: 0, stderr: expect.stringMatching(/^export: \d+ events in/m) });
    const file = join(dir, 'proc.ndjson');
    writeFileSync(file, exported.stdout);
    const imported = await chronicle(['import', file], { DATABASE_URL: target.url });
    expect(imported).toMatchObject({ code: 0, stdout: expect.stringMatching(/^imported \d+ event\(s\) of 1 stream\(s\); 0 already stored\n$/) });
    const again = await chronicle(['import', file], { DATABASE_URL: target.url });
    expect(again.stdout).toMatch(/^imported 0 event\(s\)/);
    const [a, b] = await Promise.all([
      chronicle(['replay', 'proc', '--json'], { DATABASE_URL: source.url }),
      chronicle(['replay', 'proc', '--json'], { DATABASE_URL: target.url }),
    ]);
    expect(a.code).toBe(0);
    expect(JSON.parse(b.stdout)).toEqual(JSON.parse(a.stdout));
    expect((await chronicle(['audit'], { DATABASE_URL: target.url })).code).toBe(0);
  }, SLOW);

  it('prints help with exit 0, and usage errors with exit 2', async () => {
    expect(await chronicle(['--help'], {})).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: chronicle <command>') });
    expect(await chronicle(['import', '--help'], {})).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: chronicle import FILE.ndjson') });
    expect(await chronicle(['replay', 'x', '--at', 'soon'], {})).toMatchObject({ code: 2, stderr: expect.stringContaining('--at must be a positive integer') });
    expect(await chronicle(['frobnicate'], {})).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown command 'frobnicate'") });
    expect(await chronicle(['export', '--sesion', 'x'], {})).toEqual({
      code: 2,
      stdout: '',
      stderr: "chronicle: unknown option '--sesion' for 'export' (see 'chronicle export --help')\n",
    });
  }, SLOW);

  it('answers exit 2 with a clear message when the database cannot be reached', async () => {
    const down = await chronicle(['export'], { DATABASE_URL: 'postgres://chronicle:secret@127.0.0.1:1/chronicle' });
    expect(down.code).toBe(2);
    expect(down.stderr).toContain('cannot use the database at postgres://chronicle:***@127.0.0.1:1/chronicle');
    expect(down.stderr).not.toContain('secret');
  }, SLOW);

  it('answers exit 2 telling to stop the service when the embedded cluster is in use', async () => {
    const dataDir = join(dir, 'locked');
    mkdirSync(join(dataDir, 'pg'), { recursive: true });
    writeFileSync(join(dataDir, 'pg', 'PG_VERSION'), '15\n');
    writeFileSync(join(dataDir, 'pg', 'postmaster.pid'), `${process.pid}\n`); // a live process holds it
    const locked = await chronicle(['export'], { CHRONICLE_DATA_DIR: dataDir });
    expect(locked.code).toBe(2);
    expect(locked.stderr).toContain(`the embedded database in ${dataDir} is in use by a running Chronicle service`);
    expect(locked.stderr).toContain('Stop the service first, or set DATABASE_URL');
  }, SLOW);
});
