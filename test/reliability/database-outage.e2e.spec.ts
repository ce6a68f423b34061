import { bearer, KEYS } from '../support/app.js';
import { startServer, stopServer, stopTestCluster, type TestCluster } from '../support/test-postgres.mjs';
import { type Acknowledged, runChat, verifyChats } from './support/chat-workload.js';
import { newTally } from './support/retrying-client.js';
import { report, SCALE, SUITE_TIMEOUT_MS } from './support/scale.js';
import { startOwnDatabase } from './support/own-cluster.js';
import { ServiceUnderTest } from './support/service.js';

// Its own PostgreSQL cluster (startOwnDatabase): stopping it never disturbs the test files that share the global one.
let cluster: TestCluster;
let service: ServiceUnderTest;
let url: string;
beforeAll(async () => {
  ({ cluster, url } = await startOwnDatabase('outage'));
  service = await ServiceUnderTest.start(url);
}, 60_000);
afterAll(async () => {
  await service?.stop();
  if (cluster) stopTestCluster(cluster);
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ready = () => fetch(`${service.base}/health/ready`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.status === 200, () => false);

describe('when PostgreSQL stops mid-load and starts again', () => {
  it(
    'answers every request (503 with Retry-After, never a hang or a 500), turns ready false then true, and loses nothing acknowledged',
    async () => {
      const tally = newTally();
      const reads = { ok: 0, unavailable: 0, other: [] as number[], hangs: 0, retryAfter: 0 };
      let done = false;
      const chats: Promise<Acknowledged[]> = Promise.all(
        Array.from({ length: SCALE.clients }, (_, c) => runChat(() => service.base, `outage-${c}`, SCALE, tally)),
      ).finally(() => (done = true));
      const reader = (async () => {
        while (!done) {
          const res = await fetch(`${service.base}/v1/sessions/outage-0/transcript`, {
            headers: bearer(KEYS.read),
            signal: AbortSignal.timeout(10_000),
          }).catch((error: Error) => {
            if (error.name === 'TimeoutError') reads.hangs += 1;
            return null;
          });
          if (res?.status === 200 || res?.status === 404) reads.ok += 1;
          else if (res?.status === 503) {
            reads.unavailable += 1;
            if (res.headers.get('retry-after')) reads.retryAfter += 1;
          } else if (res) reads.other.push(res.status);
          await res?.text();
          await pause(20);
        }
      })();
      const readiness: boolean[] = [];
      for (let outage = 0; outage < SCALE.outages && !done; outage += 1) {
        const target = tally.acknowledged + SCALE.clients * 4;
        while (tally.acknowledged < target && !done) await pause(20);
        stopServer(cluster, 'fast');
        await pause(300);
        const beforeReads = reads.unavailable;
        for (let i = 0; i < 20 && reads.unavailable === beforeReads; i += 1) await pause(100);
        readiness.push(await ready());
        await pause(1_000);
        startServer(cluster);
        const deadline = Date.now() + 30_000;
        while (!(await ready()) && Date.now() < deadline) await pause(100);
        readiness.push(await ready());
      }
      const acked = await chats;
      await reader;
      const verdict = await verifyChats(url, service.base, acked);
      report('database-outage', {
        ...verdict,
        outages: SCALE.outages,
        requests: tally.acknowledged,
        writes503: tally.unavailable503,
        reads503: reads.unavailable,
        serverErrors: tally.serverErrors + reads.other.length,
        hangs: tally.hangs + reads.hangs,
      });
      expect(readiness).toEqual(Array.from({ length: SCALE.outages }, () => [false, true]).flat());
      expect(tally.unavailable503 + reads.unavailable).toBeGreaterThan(0);
      expect(reads.retryAfter).toBe(reads.unavailable);
      expect([tally.hangs, reads.hangs, tally.serverErrors, reads.other, tally.unexpected]).toEqual([0, 0, 0, [], []]);
      expect(verdict).toMatchObject({ losses: 0, duplicates: 0, auditMismatches: 0 });
    },
    SUITE_TIMEOUT_MS,
  );
});
