import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureFreshBuild, staleSource } from '../../../bin/fresh-build.mjs';

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
    expect(staleSource(tree(built))).toBeNull();
  });

  it.each(['apps/chronicle-cli/src/main.ts', 'libs/domain/src/index.ts', 'migrations/index.ts'])('when %s is newer than its build', (source) => {
    expect(staleSource(tree({ ...built, [source]: 60 }))).toBe(source);
  });

  it('when a source has no build yet', () => {
    expect(staleSource(tree({ ...built, 'libs/platform/src/config/config.ts': 2 * HOUR }))).toBe('libs/platform/src/config/config.ts');
  });

  it('not for what the swc build leaves out: specs, declarations, the dashboard, other files', () => {
    const root = tree({
      ...built,
      'libs/domain/src/x.unit.spec.ts': 0,
      'libs/domain/src/y.d.ts': 0,
      'apps/admin-dashboard/vite.config.ts': 0,
      'libs/domain/src/projection/golden/a/given.events.json': 0,
    });
    expect(staleSource(root)).toBeNull();
  });

  it('never in a tree without sources (the container image copies dist/ only)', () => {
    expect(staleSource(tree({ 'dist/apps/chronicle-cli/src/main.js': HOUR }))).toBeNull();
  });
});

describe('ensureFreshBuild', () => {
  it('rebuilds a stale dist/ before it runs, saying so in one line', () => {
    const root = tree({ ...built, 'libs/domain/src/index.ts': 60 });
    const lines: string[] = [];
    const builds: string[] = [];
    const build = (at: string) => {
      builds.push(at);
      utimesSync(join(at, 'dist/libs/domain/src/index.js'), NOW, NOW);
      return null;
    };
    expect(ensureFreshBuild(root, { build, warn: (line) => lines.push(line) })).toBeNull();
    expect(builds).toEqual([root]);
    expect(lines).toEqual(['chronicle: rebuilding dist/ (libs/domain/src/index.ts changed since the last build)']);
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
    const failure = ensureFreshBuild(root, { build: () => 'npm run build:server exited 1', warn: () => undefined });
    expect(failure).toBe('chronicle: the rebuild failed (npm run build:server exited 1); dist/ is stale, fix the build or run npm run build');
  });

  it('refuses a dist/ that a rebuild left stale', () => {
    const root = tree({ ...built, 'migrations/index.ts': 60 });
    expect(ensureFreshBuild(root, { build: () => null, warn: () => undefined })).toBe('chronicle: dist/ is still stale after the rebuild (migrations/index.ts); run npm run build');
  });
});
