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

const libs = ['domain', 'event-store', 'read-models', 'session-commands', 'recovery', 'platform', 'hermes-import'];
const moduleNameMapper = {
  ...Object.fromEntries(libs.map((lib) => [`^#${lib}$`, `<rootDir>/libs/${lib}/src/index.ts`])),
  '^#domain/replay$': '<rootDir>/libs/domain/src/replay.ts',
  '^#event-store/hash$': '<rootDir>/libs/event-store/src/event-hash.ts',
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

export default {
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/**/*.unit.spec.ts'] },
    { ...common, displayName: 'int', testMatch: ['<rootDir>/**/*.int.spec.ts'], setupFilesAfterEnv: [slowTier] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/**/*.e2e.spec.ts'], setupFilesAfterEnv: [slowTier] },
    // The admin dashboard in Debian's Chromium against the real app (test/browser).
    { ...common, displayName: 'browser', testMatch: ['<rootDir>/**/*.browser.spec.ts'], setupFilesAfterEnv: [slowTier] },
  ],
};
