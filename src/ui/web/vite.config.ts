/**
 * Build of the local UI's web app: src/ui/web -> dist/ui-web (served by `agentkit ui`). Hashed file names under
 * assets/ (served with a year-long immutable cache), no inline scripts or styles (the server's CSP forbids them).
 */
import react from '@vitejs/plugin-react';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: path.resolve(here, '../../../dist/ui-web'),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
