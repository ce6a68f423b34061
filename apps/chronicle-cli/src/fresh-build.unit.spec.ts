import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureFreshBuild, staleSources } from '../../../bin/fresh-build.mjs';

/** Issue 11 item 10: the bin entry never runs a stale dist/. A tree of sources and builds with chosen times. */
const HOUR = 3600;
const NOW = Math.floor(Date.now() / 1000);

function tree(files: Record<string, number>): string {
  const root = mkdtempSync(join(tmpdir(), 'chronicle-fresh-'));
  for (const [path, secondsAgo] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, '');
    utimesSync(full, NOW - secondsAgo, NOW - secondsAgo);
  }
  return root;
}

const built = {
  'apps/chronicle-cli/src/main.ts': 2 * HOUR,
  'dist/apps/chronicle-cli/src/main.js': HOUR,
  'libs/domain/src/index.ts': 2 * HOUR,
  'dist/libs/domain/src/index.js': HOUR,
  'migrations/index.ts': 2 * HOUR,
  'dist/migrations/index.js': HOUR,
};

describe('a build is stale', () => {
  it('not when every source is older than its build', () => {
    expect(staleSources(tree(built))).toEqual([]);
  });

  it.each(['apps/chronicle-cli/src/main.ts', 'libs/domain/src/index.ts', 'migrations/index.ts'])('when %s is newer than its build', (source) => {
    expect(staleSources(tree({ ...built, [source]: 60 }))).toEqual([source]);
  });

  it('when a source has no build yet', () => {
    expect(staleSources(tree({ ...built, 'libs/platform/src/config/config.ts': 2 * HOUR }))).toEqual(['libs/platform/src/config/config.ts']);
  });

  it('not for what the swc build leaves out: specs, declarations, the dashboard, other files', () => {
    const root = tree({
      ...built,
      'libs/domain/src/x.unit.spec.ts': 0,
      'libs/domain/src/y.d.ts': 0,
      'apps/admin-dashboard/vite.config.ts': 0,
      'libs/domain/src/session/golden/a/given.events.json': 0,
    });
    expect(staleSources(root)).toEqual([]);
  });

  it('never in a tree without sources (the container image copies dist/ only)', () => {
    expect(staleSources(tree({ 'dist/apps/chronicle-cli/src/main.js': HOUR }))).toEqual([]);
  });
});

describe('ensureFreshBuild', () => {
  it('rebuilds the stale files of dist/ before it runs, saying so in one line', () => {
    const root = tree({ ...built, 'libs/domain/src/index.ts': 60, 'migrations/index.ts': 60 });
    const lines: string[] = [];
    const builds: [string, readonly string[]][] = [];
    const build = (at: string, files: readonly string[]) => {
      builds.push([at, files]);
      for (const file of files) utimesSync(join(at, 'dist', file.replace(/\.ts$/, '.js')), NOW, NOW);
      return null;
    };
    expect(ensureFreshBuild(root, { build, warn: (line) => lines.push(line) })).toBeNull();
    expect(builds).toEqual([[root, ['libs/domain/src/index.ts', 'migrations/index.ts']]]);
    expect(lines).toEqual(['chronicle: rebuilding dist/ (libs/domain/src/index.ts and 1 more changed since the last build)']);
  });

  it('neither builds nor says anything when dist/ is current', () => {
    let builds = 0;
    const lines: string[] = [];
    expect(ensureFreshBuild(tree(built), { build: () => (builds++, null), warn: (line) => lines.push(line) })).toBeNull();
    expect(builds).toBe(0);
    expect(lines).toEqual([]);
  });

  it('answers a clear reason instead of running a stale dist/ when the rebuild fails', () => {
    const root = tree({ ...built, 'migrations/index.ts': 60 });
    const failure = ensureFreshBuild(root, { build: () => 'swc exited 1', warn: () => undefined });
    expect(failure).toBe('chronicle: the rebuild failed (swc exited 1); dist/ is stale, fix the build or run npm run build');
  });

  it('says so when swc is not installed', () => {
    const root = tree({ ...built, 'migrations/index.ts': 60 });
    expect(ensureFreshBuild(root, { warn: () => undefined })).toBe('chronicle: the rebuild failed (swc is not installed (run npm ci)); dist/ is stale, fix the build or run npm run build');
  });

  it('refuses a dist/ that a rebuild left stale', () => {
    const root = tree({ ...built, 'migrations/index.ts': 60 });
    expect(ensureFreshBuild(root, { build: () => null, warn: () => undefined })).toBe('chronicle: dist/ is still stale after the rebuild (migrations/index.ts); run npm run build');
  });
});
