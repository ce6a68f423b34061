import { stopTestCluster } from './test-postgres.mjs';

export default async function globalTeardown() {
  const cluster = globalThis.__CHRONICLE_TEST_CLUSTER__;
  if (cluster) stopTestCluster(cluster);
}
