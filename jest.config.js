// Jest runs as native ESM (Nest 12 is ESM-only): see README "Tests".
const swc = [
  '@swc/jest',
  {
    swcrc: false,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'es6' },
  },
];

// @fastify/static (Swagger UI assets on Fastify) require()s content-disposition 3, which is ESM-only. Node
// 20.19+ loads it natively (require(esm)); Jest's module loader only does on Node 24.9+, so under Jest
// that one package is compiled to CommonJS.
const requiredEsm = ['content-disposition'];
const swcToCommonJs = ['@swc/jest', { swcrc: false, jsc: { target: 'es2022' }, module: { type: 'commonjs' } }];

const libs = ['domain', 'event-store', 'read-models', 'session-commands', 'recovery', 'platform', 'hermes-import', 'client'];
const moduleNameMapper = {
  ...Object.fromEntries(libs.map((lib) => [`^#${lib}$`, `<rootDir>/libs/${lib}/src/index.ts`])),
  '^#domain/replay$': '<rootDir>/libs/domain/src/replay.ts',
  '^#event-store/hash$': '<rootDir>/libs/event-store/src/event-hash.ts',
  '^#event-store/seal$': '<rootDir>/libs/event-store/src/sealing/content-seal.ts',
  '^#platform/urls$': '<rootDir>/libs/platform/src/database/redact-url.ts',
  '^#platform/database-errors$': '<rootDir>/libs/platform/src/errors/database-unavailable.ts',
  '^#migrations$': '<rootDir>/migrations/index.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
};

const common = {
  rootDir: '.',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': swc,
    [`/node_modules/(?:.+/)?(?:${requiredEsm.join('|')})/.+\\.js$`]: swcToCommonJs,
  },
  transformIgnorePatterns: [`/node_modules/(?!(?:.+/)?(?:${requiredEsm.join('|')})/)`],
  moduleNameMapper,
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};

const slowTier = '<rootDir>/test/support/slow-tier.setup.mjs';
const citusTier = '<rootDir>/test/support/citus-tier.setup.mjs';

/**
 * Existing suites the Citus tier runs again, on a coordinator and two workers (issue 28), besides its own
 * `*.citus.spec.ts`: their databases come from the Citus cluster there (test/support/database.ts). Add a file
 * here to run it on Citus too.
 */
export const CITUS_SUITES = [
  // the event store contract on PostgreSQL (libs/event-store/src/testing/event-store.contract.ts)
  'libs/event-store/src/postgres-event-store.int.spec.ts',
  'test/e2e/ingestion.e2e.spec.ts',
  'test/e2e/queries.e2e.spec.ts',
  'test/e2e/recovery.e2e.spec.ts',
  'test/e2e/audit.e2e.spec.ts',
  // the CLI against a cluster: export, import, audit, replay, rebuild
  'apps/chronicle-cli/src/export-import.int.spec.ts',
  'apps/chronicle-cli/src/audit.int.spec.ts',
  'apps/chronicle-cli/src/replay.int.spec.ts',
  'libs/read-models/src/rebuild/projection-rebuild.int.spec.ts',
  // sealing the summary rows an older Chronicle wrote plain (a scan across shards, single-shard rewrites)
  'libs/read-models/src/session-summary/summary-sealing.int.spec.ts',
  // the migrations on a cluster: up from nothing, and the scale-out refused whole on the way down
  'migrations/migrations.int.spec.ts',
  // sealed runs: reads that start or end inside one (a page of the log across shards), the audit, an import
  'libs/read-models/src/sealed-runs.int.spec.ts',
  'apps/chronicle-cli/src/export-import-runs.int.spec.ts',
  // the frozen fixtures (test/fixtures/compat*): old logs, plain and sealed, imported and read back on a cluster
  'test/e2e/compat-fixture.e2e.spec.ts',
  'test/e2e/compat-sealed-fixture.e2e.spec.ts',
];

export default {
  // Jest's ESM mode keeps each test file's module graph alive (vm contexts), so one process running every suite
  // grows to V8's heap limit partway through and then collects without end (measured on 2 cores: the last 56
  // suites took 960 s against 664 s for the first 160, a unit test's 5 s timeout expired). With a limit set, Jest
  // runs the suites in worker processes (one on 2 cores, as it ran in band before) and replaces a worker whose heap
  // passes it after a suite.
  workerIdleMemoryLimit: '1GB',
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/**/*.unit.spec.ts'] },
    { ...common, displayName: 'int', testMatch: ['<rootDir>/**/*.int.spec.ts'], setupFilesAfterEnv: [slowTier] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/**/*.e2e.spec.ts'], setupFilesAfterEnv: [slowTier] },
    // The admin dashboard in Debian's Chromium against the real app (test/browser).
    { ...common, displayName: 'browser', testMatch: ['<rootDir>/**/*.browser.spec.ts'], setupFilesAfterEnv: [slowTier] },
    // A throwaway Citus coordinator + 2 workers (test/support/test-citus.mjs); skipped where Citus is not installed.
    {
      ...common,
      displayName: 'citus',
      testMatch: ['<rootDir>/**/*.citus.spec.ts', ...CITUS_SUITES.map((file) => `<rootDir>/${file}`)],
      setupFilesAfterEnv: [slowTier, citusTier],
    },
  ],
};
