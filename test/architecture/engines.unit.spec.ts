import { existsSync, readFileSync } from 'node:fs';
import semver from 'semver';

/**
 * Issue 11 item 10: `engines` says what the production dependencies declare, no more and no less. Checked on
 * every x.y.0 from Node 18 to 28 against the engines of each installed package the service runs with.
 */
interface LockedPackage {
  readonly version?: string;
  readonly dev?: boolean;
  readonly engines?: { readonly node?: string };
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockedPackage> };
const declared = Object.entries(lock.packages)
  .filter(([path, entry]) => path !== '' && !entry.dev && entry.engines?.node !== undefined && existsSync(path))
  .map(([path, entry]) => ({ name: `${path.replace(/^.*node_modules\//, '')}@${entry.version}`, range: entry.engines!.node! }));
const probes = Array.from({ length: 11 }, (_, i) => i + 18).flatMap((major) => Array.from({ length: 41 }, (_, minor) => `${major}.${minor}.0`));

describe('package.json engines', () => {
  it('reads the engines of the production dependencies', () => {
    expect(declared.length).toBeGreaterThan(20);
  });

  it('accepts a Node version exactly when every production dependency declares it', () => {
    const disagreements = probes.flatMap((version) => {
      const refusing = declared.filter(({ range }) => !semver.satisfies(version, range)).map(({ name, range }) => `${name} (${range})`);
      const accepted = semver.satisfies(version, pkg.engines.node);
      if (accepted === (refusing.length === 0)) return [];
      return [accepted ? `${version} accepted, refused by ${refusing.join(', ')}` : `${version} refused, declared by every dependency`];
    });
    expect(disagreements).toEqual([]);
  });
});
