import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The evidence workspace, served by the service at /ui/ (ADR 0023).
 * `vite build --outDir <dist>/workspace` (scripts/build-workspace.mjs) puts
 * it beside the compiled service, which serves it from there.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  plugins: [react()],
  // The typed client (ADR 0022), by name as tsconfig.json's paths name it.
  resolve: {
    alias: { '@des/client': fileURLToPath(new URL('../../clients/typescript/index.ts', import.meta.url)) },
  },
  build: { emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1000 },
});
