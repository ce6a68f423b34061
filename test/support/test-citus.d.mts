/** Types of test-citus.mjs (plain JS, so jest's global setup can load it outside the transform). */
export type CitusNodeName = 'coordinator' | 'worker1' | 'worker2';

export interface CitusNode {
  readonly name: CitusNodeName;
  readonly port: number;
  readonly dataDir: string;
}

export interface CitusCluster {
  /** The OS user the servers run as (`postgres` when the tests run as root), null for the current user. */
  readonly asUser: string | null;
  readonly baseDir: string;
  readonly nodes: readonly CitusNode[];
  /** How long the three servers took to be up, in ms. */
  readonly startMs: number;
}

/** The cluster as the global setup hands it to the test files, with the frozen template they clone. */
export interface TestCitusCluster extends CitusCluster {
  readonly template: string;
}

export const CITUS_BIN: string;
export const CITUS_LIBRARY: string;
export const CITUS_CONTROL: string;
export const NODE_NAMES: readonly CitusNodeName[];

export function citusMissing(): string | null;
export function nodeUrl(cluster: CitusCluster, name: CitusNodeName, database?: string): string;
export function startCitusCluster(): Promise<CitusCluster>;
export function stopCitusCluster(cluster: CitusCluster): Promise<void>;
export function postmasterPid(cluster: CitusCluster, name: CitusNodeName): number | null;
export function stopNode(cluster: CitusCluster, name: CitusNodeName, mode?: 'smart' | 'fast' | 'immediate'): Promise<void>;
export function killNode(cluster: CitusCluster, name: CitusNodeName): Promise<void>;
export function startNode(cluster: CitusCluster, name: CitusNodeName): Promise<void>;
export function citusClusterFromEnv(env?: NodeJS.ProcessEnv): TestCitusCluster;
export function createCitusDatabase(cluster: CitusCluster, database: string): Promise<void>;
export function freezeCitusTemplate(cluster: CitusCluster, database: string): Promise<void>;
export function cloneCitusDatabase(cluster: CitusCluster, template: string, database: string, settings?: Record<string, string>): Promise<void>;
export function dropCitusDatabase(cluster: CitusCluster, database: string): Promise<void>;
