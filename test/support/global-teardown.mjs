import { stopTestCluster } from './test-postgres.mjs';
import { stopCitusCluster } from './test-citus.mjs';

export default async function globalTeardown() {
  const citus = globalThis.__CHRONICLE_TEST_CITUS__;
  try {
    const cluster = globalThis.__CHRONICLE_TEST_CLUSTER__;
    if (cluster) stopTestCluster(cluster);
  } finally {
    if (citus) await stopCitusCluster(citus);
  }
}
