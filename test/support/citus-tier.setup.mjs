// The jest project `citus`: every test file of it gets its databases on the Citus cluster the global setup
// started (test/support/database.ts reads this), and where Citus is not installed its tests are skipped: the
// global setup printed the one line saying so.
process.env.CHRONICLE_TEST_ENGINE = 'citus';

if (process.env.CHRONICLE_TEST_CITUS_SKIPPED) {
  // Every test and describe registered from here on is a skipped one (with what it carries: each, only,
  // concurrent…), so the file reports its tests as skipped; jest runs no beforeAll/afterAll of a block with
  // no enabled test, so no hook reaches for the missing cluster.
  const skipping = (skip, extra = {}) => Object.assign((...args) => skip(...args), { ...extra, each: skip.each, only: skip, skip });
  const it = skipping(globalThis.it.skip, { todo: globalThis.it.todo, failing: globalThis.it.skip, concurrent: skipping(globalThis.it.skip) });
  globalThis.it = it;
  globalThis.test = it;
  globalThis.fit = it;
  const describe = skipping(globalThis.describe.skip);
  globalThis.describe = describe;
  globalThis.fdescribe = describe;
}
