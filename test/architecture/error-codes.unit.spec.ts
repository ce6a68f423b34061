import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { STATUS_BY_CODE } from '#platform';

/** Issue 11 item 6: one typed error-code table, and no code in it that nothing throws. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'testing' ? [] : sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('problem.ts') ? [path] : [];
  });
}

describe('the error-code table', () => {
  const sources = [...sourceFiles('apps'), ...sourceFiles('libs')].map((path) => readFileSync(path, 'utf8'));

  it.each(Object.keys(STATUS_BY_CODE))('holds %s, which some source outside the table uses', (code) => {
    expect(sources.some((text) => text.includes(`'${code}'`) || text.includes(`"${code}"`))).toBe(true);
  });

  it('maps every code to a 4xx or 5xx status', () => {
    for (const status of Object.values(STATUS_BY_CODE)) expect(status >= 400 && status < 600).toBe(true);
  });
});
