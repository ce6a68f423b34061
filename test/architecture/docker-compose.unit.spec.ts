import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadConfig } from '#platform';

/**
 * docker-compose.yml is for users (no Docker engine runs here): what can be checked without one is checked here.
 * Every service it depends on exists, every variable it hands Chronicle is one Chronicle reads, and the `citus`
 * profile is the cluster the README describes: a coordinator and two workers, the service on the coordinator
 * and a second replica on a worker.
 */
interface Service {
  readonly profiles?: readonly string[];
  readonly image?: string;
  readonly build?: string;
  readonly command?: readonly string[];
  readonly depends_on?: Record<string, { condition: string }>;
  readonly environment?: Record<string, string>;
  readonly volumes?: readonly string[];
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const chronicles = Object.entries(services).filter(([, service]) => service.build === '.');
const host = (url: string) => new URL(url).hostname;

describe('docker-compose.yml', () => {
  it('depends only on services it defines, each with a condition compose knows', () => {
    for (const service of Object.values(services)) {
      for (const [name, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(services[name]).toBeDefined();
        expect(['service_healthy', 'service_started', 'service_completed_successfully']).toContain(condition);
      }
    }
  });

  it('hands every Chronicle service a configuration Chronicle accepts, with a database it defines', () => {
    expect(chronicles.length).toBeGreaterThanOrEqual(3);
    for (const [, service] of chronicles) {
      const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([key, value]) => [key, value.replace(/\$\{[^}]*\}/g, '')]));
      expect(() => loadConfig(env)).not.toThrow();
      expect(services[host(env.DATABASE_URL)]).toBeDefined();
    }
  });

  it('has a citus profile: a coordinator, two workers, the service on the coordinator and a replica on a worker', () => {
    const citus = Object.entries(services).filter(([, service]) => service.profiles?.includes('citus'));
    const nodes = citus.filter(([, service]) => service.image?.includes('citusdata/citus') && service.command?.[0] === 'postgres');
    expect(nodes.map(([name]) => name).sort()).toEqual(['citus-coordinator', 'citus-worker1', 'citus-worker2']);
    // Two-phase commit across nodes needs prepared transactions on every node.
    for (const [, node] of nodes) expect(node.command).toContain('max_prepared_transactions=200');
    const apps = citus.filter(([, service]) => service.build === '.');
    expect(apps.map(([, service]) => host(service.environment?.DATABASE_URL ?? '')).sort()).toEqual(['citus-coordinator', 'citus-worker1']);
    // The replica on a worker starts once the coordinator's has applied the migrations (a worker refuses to).
    const replica = apps.find(([, service]) => host(service.environment?.DATABASE_URL ?? '') === 'citus-worker1');
    expect(replica?.[1].depends_on).toEqual({ 'citus-chronicle': { condition: 'service_healthy' } });
    // Replicas share one key store and one master key (the data volume holds the generated one): a replica with
    // its own could not read the sessions the other sealed.
    const keystores = new Set(apps.map(([, service]) => service.environment?.CHRONICLE_KEYSTORE_URL));
    expect(keystores.size).toBe(1);
    expect(host([...keystores][0] ?? '')).toBe('citus-coordinator');
    expect(new Set(apps.map(([, service]) => JSON.stringify(service.volumes))).size).toBe(1);
    for (const [, service] of apps) expect(service.environment?.CHRONICLE_MASTER_KEY).toBe('${CHRONICLE_MASTER_KEY:-}');
  });
});
