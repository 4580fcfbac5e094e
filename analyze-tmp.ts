import { build } from 'esbuild';
import { lambdaBuildOptions } from './lib/lambda-bundle.ts';
const r = await build({ ...lambdaBuildOptions('functions/order.ts', '/tmp/an15d/index.mjs'), metafile: true });
const out = Object.entries(r.metafile.outputs).find(([k]) => k.endsWith('.mjs'))![1];
const rows = Object.entries(out.inputs).map(([f, v]) => [f, v.bytesInOutput] as const).sort((a, b) => b[1] - a[1]);
for (const pkg of process.argv.slice(2)) {
  console.log('==', pkg);
  for (const [f, b] of rows.filter(([f]) => f.includes(pkg)).slice(0, 25)) console.log((b / 1024).toFixed(1).padStart(7), f.replace(/.*node_modules\//, ''));
}
