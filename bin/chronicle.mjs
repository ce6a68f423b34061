#!/usr/bin/env node
// `npx chronicle …`: runs the CLI from the swc build, (re)building it first when missing or older than a source.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFreshBuild } from './fresh-build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const failure = ensureFreshBuild(root);
if (failure !== null) {
  process.stderr.write(`${failure}\n`);
  process.exit(2);
}
await import(join(root, 'dist/apps/chronicle-cli/src/main.js'));
