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
 * The sources under `root` whose build in `root/dist` is missing or older than them, as paths relative to
 * `root`; none when the build is current. A tree without sources (the container image) is always current.
 */
export function staleSources(root) {
  const stale = [];
  for (const dir of SOURCE_DIRS) {
    for (const source of sources(join(root, dir))) {
      const path = relative(root, source);
      const built = join(root, 'dist', path.replace(/\.ts$/, '.js'));
      if (!existsSync(built) || statSync(built).mtimeMs < statSync(source).mtimeMs) stale.push(path);
    }
  }
  return stale;
}

/**
 * Compiles `files` into dist/ as `npm run build:server` does (same swc, same .swcrc, same paths): each file
 * compiles alone, so only the stale ones are rewritten (quick, and a process running the rest of dist/ is
 * left alone). Answers null, or why it failed.
 */
export function swcBuild(root, files) {
  const swc = join(root, 'node_modules/@swc/cli/bin/swc.js');
  if (!existsSync(swc)) return 'swc is not installed (run npm ci)';
  const result = spawnSync(process.execPath, [swc, ...files, '--out-dir', 'dist', '--config-file', '.swcrc', '--quiet'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return result.error ? `could not run swc (${result.error.message})` : result.status === 0 ? null : `swc exited ${result.status}`;
}

/**
 * Never runs a stale dist/: rebuilds what is stale first, saying so in one line on stderr. Answers null when
 * dist/ can run, else the one-line reason it cannot.
 */
export function ensureFreshBuild(root, { build = swcBuild, warn = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const stale = staleSources(root);
  if (stale.length === 0) return null;
  const more = stale.length > 1 ? ` and ${stale.length - 1} more` : '';
  warn(`chronicle: rebuilding dist/ (${stale[0]}${more} changed since the last build)`);
  const failure = build(root, stale);
  if (failure !== null) return `chronicle: the rebuild failed (${failure}); dist/ is stale, fix the build or run npm run build`;
  const still = staleSources(root);
  return still.length === 0 ? null : `chronicle: dist/ is still stale after the rebuild (${still[0]}); run npm run build`;
}
