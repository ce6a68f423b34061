/** Types of test-citus.mjs (plain JS, so jest's global setup can load it outside the transform). */
import type { CitusCluster } from './citus-cluster.js';

// Everything of the cluster but its start (the tests' settings) is citus-cluster.js's.
export * from './citus-cluster.js';

/** The cluster as the global setup hands it to the test files, with the frozen template they clone. */
export interface TestCitusCluster extends CitusCluster {
  readonly template: string;
}

/** The test cluster (tmpfs, fsync off), started. */
export function startCitusCluster(): Promise<CitusCluster>;
export function citusClusterFromEnv(env?: NodeJS.ProcessEnv): TestCitusCluster;
export function freezeCitusTemplate(cluster: CitusCluster, database: string): Promise<void>;
export function cloneCitusDatabase(cluster: CitusCluster, template: string, database: string, settings?: Record<string, string>): Promise<void>;
export function dropCitusDatabase(cluster: CitusCluster, database: string): Promise<void>;
