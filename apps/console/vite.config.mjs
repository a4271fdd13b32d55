// The web console's build (docs/adr/0029-web-console.md): `npm run build` runs it through scripts/build-console.mjs
// into dist/console, which the gateway serves at /console. esbuild compiles the JSX (no React plugin: there is no
// dev-server hot reload to support, only this one build).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/console/',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Nothing inlined as a data: URL or a <script> in index.html: the CSP allows only the console's own files.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      // React Query marks its modules "use client" (for React Server Components); meaningless in this bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
