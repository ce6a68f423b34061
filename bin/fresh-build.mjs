// Plain JS: the bin entry runs it before anything is built.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** What the swc build compiles for the service and the CLI (package.json `build:server`, .swcrc's exclude). */
const SOURCE_DIRS = ['apps', 'libs', 'migrations'];
const SKIPPED_DIRS = new Set(['node_modules', 'admin-dashboard']);
const isCompiled = (name) => name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.spec.ts');

function* sources(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* sources(path);
    } else if (entry.isFile() && isCompiled(entry.name)) {
      yield path;
    }
  }
}

/**
 * The first source under `root` whose build in `root/dist` is missing or older than it, as a path relative to
 * `root`; null when the build is current. A tree without sources (the container image) is always current.
 */
export function staleSource(root) {
  for (const dir of SOURCE_DIRS) {
    for (const source of sources(join(root, dir))) {
      const path = relative(root, source);
      const built = join(root, 'dist', path.replace(/\.ts$/, '.js'));
      if (!existsSync(built) || statSync(built).mtimeMs < statSync(source).mtimeMs) return path;
    }
  }
  return null;
}

/** The swc build of the service and the CLI (seconds; the dashboard's vite build is not needed here). */
export function npmBuild(root) {
  const result = spawnSync('npm', ['run', '--silent', 'build:server'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  return result.error ? `could not run npm (${result.error.message})` : result.status === 0 ? null : `npm run build:server exited ${result.status}`;
}

/**
 * Never runs a stale dist/: rebuilds first when a source is newer than its build, saying so in one line on
 * stderr. Answers null when dist/ can run, else the one-line reason it cannot.
 */
export function ensureFreshBuild(root, { build = npmBuild, warn = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const stale = staleSource(root);
  if (stale === null) return null;
  warn(`chronicle: rebuilding dist/ (${stale} changed since the last build)`);
  const failure = build(root);
  if (failure !== null) return `chronicle: the rebuild failed (${failure}); dist/ is stale, fix the build or run npm run build`;
  const still = staleSource(root);
  return still === null ? null : `chronicle: dist/ is still stale after the rebuild (${still}); run npm run build`;
}
