import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build } from 'esbuild';

/**
 * The Lambda bundles' esbuild settings, apart from the CDK construct (lib/api-function.ts) so that
 * the CDK's afterBundling hook, the bench and the tests load them without aws-cdk-lib.
 */

/** The repository root: handler paths in shared/http/routes.ts are relative to it. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** esbuild emits ESM; CommonJS dependencies bundled into it still call `require`. */
export const CREATE_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Packages swapped for a smaller stand-in in the Lambda bundles (esbuild `alias`): the credential
 * chain Lambda never needs beyond its environment variables (lib/lambda-credentials.ts), and the
 * event-stream codec no DynamoDB operation loads (lib/no-event-streams.ts), and the endpoint-discovery
 * cache no DynamoDB command reads (lib/no-endpoint-discovery.ts).
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': join(REPO_ROOT, 'lib/lambda-credentials.ts'),
  '@aws-sdk/middleware-endpoint-discovery': join(REPO_ROOT, 'lib/no-endpoint-discovery.ts'),
  '@smithy/core/event-streams': join(REPO_ROOT, 'lib/no-event-streams.ts'),
  'node:http': join(REPO_ROOT, 'lib/node-http.ts'),
};

/**
 * The CEL chunk: cel-js and the condition compiler (shared/scoring/cel-chunk.ts), left out of every
 * function's index.mjs (external) and built beside it as cel-chunk.mjs, which the workflow engine
 * imports only for a condition outside the simple subset (`import.meta.celChunk`, defined here).
 */
export const CEL_CHUNK_ENTRY = join(REPO_ROOT, 'shared/scoring/cel-chunk.ts');
export const CEL_CHUNK_FILE = 'cel-chunk.mjs';
export const CEL_CHUNK_DEFINE: Readonly<Record<string, string>> = {
  'import.meta.celChunk': JSON.stringify(`./${CEL_CHUNK_FILE}`),
};

function commonOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    mainFields: ['module', 'main'],
    banner: { js: CREATE_REQUIRE_BANNER },
    minify: true,
    keepNames: true,
    sourcemap: true,
    sourcesContent: false,
    alias: { ...BUNDLE_ALIASES },
    // An entry outside the repository (the bench's bare bundle) still resolves its packages here.
    nodePaths: [join(REPO_ROOT, 'node_modules')],
    logLevel: 'warning',
  };
}

/**
 * The esbuild options the bundling settings of lib/api-function.ts amount to, for the bench and the
 * tests that build a function's bundle themselves (the CDK runs esbuild with these through
 * NodejsFunction).
 */
export function lambdaBuildOptions(entry: string, outfile: string): BuildOptions {
  return { ...commonOptions(entry, outfile), define: { ...CEL_CHUNK_DEFINE }, external: [CEL_CHUNK_ENTRY] };
}

/** Builds the CEL chunk into a function's output folder, beside its index.mjs. */
export async function buildCelChunk(outdir: string): Promise<string> {
  const outfile = join(outdir, CEL_CHUNK_FILE);
  await build(commonOptions(CEL_CHUNK_ENTRY, outfile));
  return outfile;
}

/** A function's asset as the CDK builds it: index.mjs and the CEL chunk in `outdir`. */
export async function buildLambdaAsset(
  entry: string,
  outdir: string,
): Promise<{ index: string; celChunk: string }> {
  const index = join(outdir, 'index.mjs');
  await build(lambdaBuildOptions(entry, index));
  return { index, celChunk: await buildCelChunk(outdir) };
}

// `node lib/lambda-bundle.ts <output folder>`: the CDK's afterBundling hook (lib/api-function.ts).
if (import.meta.main) {
  const outdir = process.argv[2];
  if (!outdir) throw new Error('usage: node lib/lambda-bundle.ts <output folder>');
  await buildCelChunk(outdir);
}
