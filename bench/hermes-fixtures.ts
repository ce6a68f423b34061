import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeHermesScenarios } from '../test/support/hermes-scenarios.fixture.js';

/**
 * `npm run hermes:fixtures [-- DIR]`: writes the import tests' hermes-webui install (test/support) into DIR
 * (default: a new temp folder) and prints the import command to run on it.
 */
const root = process.argv[2] ? resolve(process.argv[2]) : mkdtempSync(join(tmpdir(), 'hermes-webui-'));
const layout = await writeHermesScenarios(root);
process.stdout.write(`hermes-webui files written to ${root}\n`);
process.stdout.write(`  npx chronicle import-hermes --sessions ${layout.sessions} --state-db ${layout.stateDb}\n`);
