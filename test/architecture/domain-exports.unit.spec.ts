import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * libs/domain/src/index.ts exports what code outside the domain uses (other libs, apps, benches, tests), and
 * nothing else: a name only the domain's own specs use is imported by relative path there (libs/domain/README.md).
 */
const INDEX = 'libs/domain/src/index.ts';
const ENTRY = /^(?:#domain|(?:\.\.\/)+libs\/domain\/src\/index\.js)$/;

/** The names an `export { … } from` / `export type { … } from` list names, `type` markers dropped. */
export function exportedNames(source: string): string[] {
  const lists = [...source.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'[^']+';/gm)].map((match) => match[1]);
  return lists.flatMap((list) => namesIn(list));
}

/** The names a file imports from the domain's entry. */
export function importedNames(source: string): string[] {
  const imports = [...source.matchAll(/\bimport\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/g)];
  return imports.filter((match) => ENTRY.test(match[2])).flatMap((match) => namesIn(match[1]));
}

function namesIn(list: string): string[] {
  return list
    .split(',')
    .map((part) => part.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0].trim())
    .filter((name) => name !== '');
}

const outsideDomain = (): string[] =>
  execFileSync('git', ['ls-files', '*.ts', '*.tsx', '*.mts'], { encoding: 'utf8' })
    .split('\n')
    .filter((file) => file !== '' && !file.startsWith('libs/domain/'));

describe('the domain entry', () => {
  it('reads the names an export list gives and an import of the entry takes (the check can fail)', () => {
    expect(exportedNames(`export { a, type B } from './a.js';\nexport type { C } from './c.js';`)).toEqual(['a', 'B', 'C']);
    expect(importedNames(`import { a, type B as X } from '#domain';\nimport { d } from '#read-models';`)).toEqual(['a', 'B']);
    expect(importedNames(`import type { C } from '../libs/domain/src/index.js';`)).toEqual(['C']);
  });

  it('exports only names that code outside the domain imports', () => {
    const source = readFileSync(INDEX, 'utf8');
    expect(source).not.toMatch(/^export \*/m);
    const exported = exportedNames(source);
    const used = new Set(outsideDomain().flatMap((file) => importedNames(readFileSync(file, 'utf8'))));
    expect(exported.length).toBeGreaterThan(30);
    expect(exported.filter((name) => !used.has(name))).toEqual([]);
  });
});
