import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The dashboard is static files under `/admin/` of the session API (same origin, no second server):
 * `npm run build` writes them to `dist/admin`, where `apps/session-api/src/admin` serves them from.
 */
export default defineConfig({
  root,
  base: '/admin/',
  // React 19's automatic runtime: no plugin needed for JSX (no fast refresh either: there is no dev server).
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/admin', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 400,
  },
  logLevel: 'warn',
});
