import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/** The console is served from the API's own origin (local server, CloudFront), so paths are absolute. */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [preact()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 300 },
  logLevel: 'warn',
});
