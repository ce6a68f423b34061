/** Types of citus-cluster.js (plain JS: jest's global setup loads it outside the transform; the bench, built by swc). */
import type pg from 'pg';

export type CitusNodeName = 'coordinator' | 'worker1' | 'worker2';

export interface CitusNode {
  readonly name: CitusNodeName;
  readonly port: number;
  readonly dataDir: string;
}

export interface CitusCluster {
  /** The OS user the servers run as (`postgres` when run as root), null for the current user. */
  readonly asUser: string | null;
  readonly baseDir: string;
  readonly nodes: readonly CitusNode[];
  /** How long the three servers took to be up, in ms. */
  readonly startMs: number;
}

export interface CitusClusterOptions {
  /** A free TCP port of 127.0.0.1 (asked three times). */
  readonly freePort: () => Promise<number>;
  /** Where the cluster's temp dir goes. */
  readonly dataRoot: string;
  /** The temp dir's name before mkdtemp's suffix. */
  readonly prefix: string;
  /** The comment heading the settings in each node's postgresql.conf. */
  readonly label: string;
  /** Server settings beyond the cluster's own (`name = value` as postgresql.conf reads it). */
  readonly settings: Readonly<Record<string, string | number>>;
}

export const CITUS_BIN: string;
export const CITUS_LIBRARY: string;
export const CITUS_CONTROL: string;
export const NODE_NAMES: readonly CitusNodeName[];

export function citusMissing(): string | null;
export function nodeUrl(cluster: CitusCluster, name: CitusNodeName, database?: string): string;
export function startCitusCluster(options: CitusClusterOptions): Promise<CitusCluster>;
export function stopCitusCluster(cluster: CitusCluster): Promise<void>;
export function stopCitusClusterNow(cluster: CitusCluster): void;
export function postmasterPid(cluster: CitusCluster, name: CitusNodeName): number | null;
export function stopNode(cluster: CitusCluster, name: CitusNodeName, mode?: 'smart' | 'fast' | 'immediate'): Promise<void>;
export function killNode(cluster: CitusCluster, name: CitusNodeName): Promise<void>;
export function startNode(cluster: CitusCluster, name: CitusNodeName): Promise<void>;
export function onNode<T>(cluster: CitusCluster, name: CitusNodeName, database: string, work: (client: pg.Client) => Promise<T>): Promise<T>;
export function quoteIdentifier(identifier: string): string;
export function createCitusDatabase(cluster: CitusCluster, database: string): Promise<void>;
