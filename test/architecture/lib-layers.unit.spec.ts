import { readdirSync } from 'node:fs';
import { ESLint } from 'eslint';
import { LIB_IMPORTS } from '../../eslint.config.js';

const layers = LIB_IMPORTS as Record<string, readonly string[]>;

// One linter for every probe: each new one loaded the whole config again. Linting is CPU work that the suite's
// other workers share the cores with: a probe took over 5 s on a loaded 2-core CI machine, so the bound is wide.
const eslint = new ESLint({ cwd: process.cwd() });
const LINT_TIMEOUT_MS = 60_000;

async function lintAs(filePath: string, line: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${line}\nexport const probe = x;\n`, { filePath });
  return result.messages.map((m) => m.message);
}

describe('which lib may import which (eslint.config.js LIB_IMPORTS)', () => {
  it('names every lib of libs/ (a new lib gets its layer before its first import)', () => {
    const libs = readdirSync('libs', { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect([...Object.keys(layers), 'domain'].sort()).toEqual(libs.sort());
  });

  it('is a layering: no lib may import a lib that may import it', () => {
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      (layers[from] ?? []).some((next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))));
    for (const lib of Object.keys(layers)) expect(reaches(lib, lib)).toBe(false);
  });

  const forbidden = Object.entries(layers).flatMap(([lib, allowed]) =>
    [...Object.keys(layers), 'domain'].filter((other) => !allowed.includes(other)).map((other) => [lib, other] as const),
  );
  it.each(forbidden)('rejects libs/%s importing #%s, in code and in test fixtures', async (lib, other) => {
    for (const file of [`libs/${lib}/src/probe.ts`, `libs/${lib}/src/probe.int.spec.ts`]) {
      const messages = await lintAs(file, `import { x } from '#${other}';`);
      expect(messages.join('\n')).toContain(`libs/${lib} may import only`);
    }
  }, LINT_TIMEOUT_MS);

  const allowed = Object.entries(layers).flatMap(([lib, libs]) => libs.map((other) => [lib, other] as const));
  // libs/event-store takes the platform's URL helper by its own entry (the index loads the HTTP platform).
  const entryOf = (lib: string, other: string) => (lib === 'event-store' && other === 'platform' ? '#platform/urls' : `#${other}`);
  it.each(allowed)('accepts libs/%s importing #%s', async (lib, other) => {
    expect(await lintAs(`libs/${lib}/src/probe.ts`, `import { x } from '${entryOf(lib, other)}';`)).toEqual([]);
  }, LINT_TIMEOUT_MS);

  it('keeps the #platform index out of libs/event-store, specs aside', async () => {
    expect((await lintAs('libs/event-store/src/probe.ts', "import { x } from '#platform';")).join('\n')).toContain('imports #platform/urls, not the #platform index');
    expect(await lintAs('libs/event-store/src/probe.int.spec.ts', "import { x } from '#platform';")).toEqual([]);
  }, LINT_TIMEOUT_MS);

  it('holds inside the audit worker files too, whose own rule replaces the lib rule', async () => {
    const messages = await lintAs('libs/read-models/src/audit/store/probe.ts', "import { x } from '#session-commands';");
    expect(messages.join('\n')).toContain('libs/read-models may import only');
  }, LINT_TIMEOUT_MS);
});
