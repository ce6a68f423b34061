import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';

/**
 * The layout rule of libs/domain (libs/domain/README.md): its top-level folders are concepts that depend on each
 * other in one direction only, and production code (anything but `testing/` and specs) never reaches for test
 * support: not `testing/`, not fast-check.
 */
const SRC = join(process.cwd(), 'libs/domain/src');

const isSpec = (file: string): boolean => file.endsWith('.spec.ts');
const isTesting = (file: string): boolean => file.startsWith('testing/');

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(SRC, path).split(sep).join('/')] : [];
  });
}

/** Every module specifier a file imports or re-exports (static and dynamic). */
function specifiersOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)'([^']+)'/g;
  return [...text.matchAll(pattern)].map((match) => match[1]);
}

/** The concept folder of a file under src ('.' for the files at the root, the index). */
const folderOf = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '.');

function folderGraph(files: readonly string[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const from = folderOf(file);
    if (from === '.') continue;
    for (const specifier of specifiersOf(file)) {
      if (!specifier.startsWith('.')) continue;
      const to = folderOf(posix.normalize(posix.join(posix.dirname(file), specifier)));
      if (to !== from) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
  }
  return graph;
}

/** A cycle of the graph as a path `a → b → … → a`, or null when it has none. */
export function findCycle(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] | null {
  const done = new Set<string>();
  const visit = (node: string, path: string[]): string[] | null => {
    const at = path.indexOf(node);
    if (at >= 0) return [...path.slice(at), node];
    if (done.has(node)) return null;
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next, [...path, node]);
      if (cycle !== null) return cycle;
    }
    done.add(node);
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node, []);
    if (cycle !== null) return cycle;
  }
  return null;
}

describe('the concept folders of libs/domain', () => {
  const files = sourceFiles();
  const production = files.filter((file) => !isSpec(file) && !isTesting(file));

  it('finds a cycle when there is one (the check can fail)', () => {
    const graph = new Map([
      ['session', new Set(['journal'])],
      ['journal', new Set(['markers'])],
      ['markers', new Set(['journal'])],
    ]);
    expect(findCycle(graph)).toEqual(['journal', 'markers', 'journal']);
    expect(findCycle(new Map([['session', new Set(['journal'])]]))).toBeNull();
  });

  it('import each other in one direction only', () => {
    const graph = folderGraph(production);
    expect(graph.size).toBeGreaterThan(5);
    expect(findCycle(graph)).toBeNull();
  });

  it('keep test support out of production code: no testing/, no fast-check', () => {
    const offenders = production.flatMap((file) =>
      specifiersOf(file)
        .filter((specifier) => specifier === 'fast-check' || posix.normalize(posix.join(posix.dirname(file), specifier)).startsWith('testing/'))
        .map((specifier) => `${file} imports ${specifier}`),
    );
    expect(production.length).toBeGreaterThan(50);
    expect(offenders).toEqual([]);
  });
});
