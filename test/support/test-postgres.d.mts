/** Types of test-postgres.mjs (plain JS, so jest's global setup can load it outside the transform). */
export interface TestCluster {
  readonly bin: string;
  readonly asUser: string | null;
  readonly dataDir: string;
  readonly port: number;
  readonly url: string;
}

export function freePort(): Promise<number>;
export function startTestCluster(): Promise<TestCluster>;
export function startServer(cluster: TestCluster): void;
export function stopServer(cluster: TestCluster, mode?: 'smart' | 'fast' | 'immediate'): void;
export function stopTestCluster(cluster: TestCluster): void;
