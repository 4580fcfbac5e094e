import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/**
 * The console is served from the API's own origin (local server, CloudFront), so paths are absolute.
 * dist/.vite/manifest.json records which chunk holds which module: the browser test reads it to check
 * that the chart library's chunk is fetched only by a page that draws a chart.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [preact()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 300, manifest: true },
  logLevel: 'warn',
});
