/**
 * `npm run bench -- tracing`: the ways to keep a trace per request and a span per DynamoDB call,
 * each built into the order function with the CDK's esbuild settings and measured side by side:
 * 1. cold start: 15 fresh imports of each bundle (with its layer's wrapper first, where the path has
 *    one), interleaved with the bare document-client bundle, wall time and process CPU (medians);
 * 2. warm: rounds of orders through each built handler against DynamoDB Local, each invocation with a
 *    fresh sampled trace header and the trace endpoint on a local UDP socket, paths interleaved
 *    round by round; CPU of the handler's thread and wall time per order (median of the rounds'
 *    medians), and the same beyond active tracing alone;
 * 3. proof: every span the endpoint received, decoded (test/support/trace-datagrams.ts), and each
 *    invocation checked for one span under the function's segment and a span under it for each of
 *    its DynamoDB calls (BatchGetItem, UpdateItem, TransactWriteItems at least).
 * Paths: shared/tracing.ts as the service ships it; the X-Ray SDK through the Powertools Tracer; an
 * OpenTelemetry SDK in the bundle; the AWS distribution of OpenTelemetry's Lambda layer (its
 * JavaScript built from the npm package as the layer builds it, the AWS SDK outside the bundle, where
 * its instrumentation can patch it), full and lite; and active tracing alone, the floor (no spans).
 * A benchmark to read, never a timed test. BENCH_TRACING_ROUNDS, _ORDERS and _IMPORTS change its size;
 * BENCH_TRACING_KEEP=1 keeps the built paths, BENCH_TRACING_SHOW=1 prints one invocation's spans per path.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { lambdaBuildOptions, REPO_ROOT } from '../lib/lambda-bundle.ts';
import { startDynamoDbLocal } from '../local/dynamodb-local.ts';
import { applyLocalEnvironment } from '../local/local-env.ts';
import { type SentSpan, spansOfDatagram } from '../test/support/trace-datagrams.ts';
import type { Invocation } from './bench-tracing-invoke.ts';

const IMPORTS = Number(process.env.BENCH_TRACING_IMPORTS ?? 15);
const ROUNDS = Number(process.env.BENCH_TRACING_ROUNDS ?? 8);
const ORDERS = Number(process.env.BENCH_TRACING_ORDERS ?? 50);
/** Invocations of each process left out of its figures: the first runs the cold paths. */
const WARMUP = 10;
/** The DynamoDB calls every order makes, each of which must have its span. */
const ORDER_CALLS = ['BatchGetItem', 'UpdateItem', 'TransactWriteItems'];

interface TracingPath {
  key: string;
  title: string;
  /** What stands in for shared/tracing.ts in the bundle. */
  module: string;
  /** Packages swapped in this path's bundle only, beside lib/lambda-bundle.ts's. */
  aliases?: Record<string, string>;
  /** The AWS SDK stays out of the bundle, loaded from node_modules as the runtime's would be. */
  externalSdk?: boolean;
  /** A layer's wrapper, loaded before the function (NODE_OPTIONS --import in Lambda). */
  layer?: 'full' | 'lite';
  /** Whether the path sends spans (active tracing alone does not). */
  spans: boolean;
}

const PATHS: TracingPath[] = [
  {
    key: 'xray-sdk',
    title: 'X-Ray SDK (Powertools Tracer)',
    module: 'scripts/tracing-paths/xray-sdk.ts',
    // As the service shipped it: cls-hooked on AsyncLocalStorage, semver's one `gte`.
    aliases: {
      'cls-hooked/context': 'scripts/tracing-paths/cls-hooked-als.cjs',
      semver: 'scripts/tracing-paths/semver-gte.ts',
    },
    spans: true,
  },
  {
    key: 'lambda-spans',
    title: "spans to Lambda's endpoint, no SDK",
    module: 'shared/tracing.ts',
    spans: true,
  },
  {
    key: 'otel-sdk',
    title: 'OpenTelemetry SDK in the bundle',
    module: 'scripts/tracing-paths/otel-sdk.ts',
    spans: true,
  },
  {
    key: 'adot-layer',
    title: 'ADOT Lambda layer',
    module: 'scripts/tracing-paths/active-only.ts',
    externalSdk: true,
    layer: 'full',
    spans: true,
  },
  {
    key: 'adot-lite',
    title: 'ADOT Lambda layer, lite mode',
    module: 'scripts/tracing-paths/active-only.ts',
    externalSdk: true,
    layer: 'lite',
    spans: true,
  },
  {
    key: 'active-only',
    title: 'active tracing alone',
    module: 'scripts/tracing-paths/active-only.ts',
    spans: false,
  },
];

/** The environment the layer's `otel-instrument` script sets, beside Lambda's own. */
const LAYER_ENV: Record<string, string> = {
  OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'aws-sdk,aws-lambda,http',
  OTEL_PROPAGATORS: 'baggage,tracecontext,xray',
  OTEL_AWS_APPLICATION_SIGNALS_ENABLED: 'true',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
  OTEL_SERVICE_NAME: 'order',
  OTEL_RESOURCE_ATTRIBUTES:
    'service.name=order,cloud.region=us-east-1,cloud.provider=aws,cloud.platform=aws_lambda',
  HANDLER_IS_ESM: 'true',
};

const BARE_SOURCE = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
export const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const handler = async () => client;
`;

/** Builds shared/tracing.ts's stand-in into the bundle in its place. */
function tracingModule(module: string): Plugin {
  const target = join(REPO_ROOT, 'shared/tracing.ts');
  return {
    name: 'tracing-path',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /tracing\.ts$/ }, (args) =>
        resolve(args.resolveDir, args.path) === target && module !== 'shared/tracing.ts'
          ? { path: join(REPO_ROOT, module) }
          : undefined,
      );
    },
  };
}

/**
 * The AWS SDK left out of the bundle and loaded with `require`, as a CommonJS handler would: the
 * layer's AWS SDK instrumentation patches it as Node's CommonJS loader loads it, which an ESM
 * `import` of it (through the layer's loader hook) does not go through.
 */
const requiredSdk: Plugin = {
  name: 'required-sdk',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^@(aws-sdk|smithy)\// }, (args) =>
      args.namespace === 'required-sdk'
        ? { path: args.path, external: true }
        : { path: args.path, namespace: 'required-sdk' },
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'required-sdk' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/** The layer's JavaScript as its build makes it (webpack there, esbuild here, same externals). */
async function buildLayer(dir: string): Promise<{ full: string; lite: string; bytes: number }> {
  const external = ['import-in-the-middle', 'require-in-the-middle', '@aws-sdk/*', '@smithy/*'];
  const pkg = '@aws/aws-distro-opentelemetry-node-autoinstrumentation';
  // One OpenTelemetry API, the distribution's own, as in the layer: instrumentations hoisted beside
  // this repository's newer API would otherwise use that one, whose context the layer never sets.
  const api = join(REPO_ROOT, 'node_modules', pkg, 'node_modules/@opentelemetry/api');
  const common = {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    minify: true,
    external,
    alias: { '@opentelemetry/api': api },
  } as const;
  await build({
    ...common,
    stdin: { contents: `require('${pkg}/register');`, resolveDir: REPO_ROOT },
    outfile: join(dir, 'wrapper.js'),
    logLevel: 'error',
  });
  await build({
    ...common,
    stdin: { contents: `require('${pkg}/lite').configureLiteMode();`, resolveDir: REPO_ROOT },
    outfile: join(dir, 'lite-wrapper.js'),
    logLevel: 'error',
  });
  // The layer's ESM entries (Node 24 loads functions as ESM): the import-in-the-middle hook, then the wrapper.
  for (const name of ['wrapper', 'lite-wrapper']) {
    writeFileSync(
      join(dir, `${name}.mjs`),
      `import { register } from 'node:module';
import { createAddHookMessageChannel } from 'import-in-the-middle';
const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
await waitForAllMessagesAcknowledged();
await import(${JSON.stringify(join(dir, `${name}.js`))});
`,
    );
  }
  return {
    full: join(dir, 'wrapper.mjs'),
    lite: join(dir, 'lite-wrapper.mjs'),
    bytes: statSync(join(dir, 'wrapper.js')).size,
  };
}

interface Built {
  path: TracingPath;
  files: string[];
  bundleBytes: number;
  env: NodeJS.ProcessEnv;
}

async function buildPaths(
  dir: string,
  lambdaEnv: NodeJS.ProcessEnv,
): Promise<{ built: Built[]; bare: string; bareBytes: number; layerBytes: number }> {
  // The layer's externals (import-in-the-middle, the AWS SDK) resolve from the repository's packages.
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  mkdirSync(join(dir, 'opt'));
  const layer = await buildLayer(join(dir, 'opt'));
  const built: Built[] = [];
  for (const path of PATHS) {
    const out = join(dir, path.key, 'index.mjs');
    const options = lambdaBuildOptions(join(REPO_ROOT, 'functions/order.ts'), out);
    const aliases = Object.entries(path.aliases ?? {}).map(([name, file]) => [name, join(REPO_ROOT, file)]);
    await build({
      ...options,
      alias: { ...options.alias, ...Object.fromEntries(aliases) },
      plugins: [tracingModule(path.module), ...(path.externalSdk ? [requiredSdk] : [])],
    });
    const preload = path.layer === 'full' ? [layer.full] : path.layer === 'lite' ? [layer.lite] : [];
    built.push({
      path,
      files: [...preload, out],
      bundleBytes: statSync(out).size,
      env: {
        ...lambdaEnv,
        LAMBDA_TASK_ROOT: dirname(out),
        AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(endpoints.get(path.key)!.address() as AddressInfo).port}`,
        ...(path.layer ? LAYER_ENV : {}),
        ...(path.layer === 'lite' ? { OTEL_AWS_LAMBDA_FAST_START: 'true' } : {}),
      },
    });
  }
  const bareEntry = join(dir, 'bare.ts');
  writeFileSync(bareEntry, BARE_SOURCE);
  const bare = join(dir, 'bare', 'index.mjs');
  await build(lambdaBuildOptions(bareEntry, bare));
  return { built, bare, bareBytes: statSync(bare).size, layerBytes: layer.bytes };
}

/** Wall time and process CPU of importing `files` in a fresh process. */
function importOnce(files: string[], env: NodeJS.ProcessEnv): [wallMs: number, cpuMs: number] {
  const script = `const c=process.cpuUsage(),t=performance.now();for(const f of ${JSON.stringify(files)})await import(f);const u=process.cpuUsage(c);console.log(JSON.stringify([performance.now()-t,(u.user+u.system)/1000]))`;
  // The layer prints its own lines first: the figures are the last line.
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as [number, number];
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

const dir = mkdtempSync(join(tmpdir(), 'bench-tracing-'));
const dynamoDb = await startDynamoDbLocal({});
applyLocalEnvironment(dynamoDb.endpoint, {
  POWERTOOLS_LOG_LEVEL: 'CRITICAL',
  POWERTOOLS_METRICS_DISABLED: 'true',
});
/** Each path's own trace endpoint, so what it sent can be told apart from the others'. */
const endpoints = new Map(PATHS.map((path) => [path.key, createSocket('udp4')]));
try {
  const loadAtStart = load();
  const received = new Map<string, SentSpan[]>();
  /** DynamoDB spans each path sent in all, in whatever trace. */
  const dynamoDbSpansSent = new Map<string, number>();
  for (const [key, endpoint] of endpoints) {
    endpoint.on('message', (datagram) => {
      for (const span of spansOfDatagram(datagram)) {
        if (span.awsService === 'DynamoDB') dynamoDbSpansSent.set(key, (dynamoDbSpansSent.get(key) ?? 0) + 1);
        const list = received.get(span.traceId) ?? [];
        list.push(span);
        received.set(span.traceId, list);
      }
    });
    await new Promise<void>((done) => endpoint.bind(0, '127.0.0.1', done));
  }
  const lambdaEnv: NodeJS.ProcessEnv = {
    ...process.env,
    AWS_REGION: 'us-east-1',
    AWS_LAMBDA_FUNCTION_NAME: 'order',
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    _HANDLER: 'index.handler',
    AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
    POWERTOOLS_DEV: 'false',
    POWERTOOLS_TRACE_ENABLED: 'true',
  };
  const { built, bare, bareBytes, layerBytes } = await buildPaths(dir, lambdaEnv);

  // 1. Cold start, interleaved with the bare bundle.
  const cold = new Map<string, { wall: number[]; cpu: number[] }>();
  for (let i = 0; i < IMPORTS; i++) {
    for (const entry of [...built, { path: { key: 'bare' }, files: [bare], env: lambdaEnv }]) {
      const [wall, cpu] = importOnce(entry.files, entry.env);
      const figures = cold.get(entry.path.key) ?? { wall: [], cpu: [] };
      figures.wall.push(wall);
      figures.cpu.push(cpu);
      cold.set(entry.path.key, figures);
    }
  }

  // 2. Warm, and what each invocation sent.
  const { ensureTable } = await import('../shared/store/ensure-table.ts');
  const { dynamoDbClient, tableName } = await import('../shared/store/client.ts');
  const { createMerchant, updateMerchant } = await import('../shared/store/merchants.ts');
  await ensureTable(dynamoDbClient, tableName);
  const { apiKey, merchantId } = await createMerchant({
    name: 'bench-tracing',
    accountUpdatesEnabled: false,
    environment: 'sandbox',
  });
  await updateMerchant(merchantId, { rateLimit: { perSecond: 1_000, burst: 1_000 } });
  const warm = new Map<string, { cpu: number[]; wall: number[]; invocations: Invocation[] }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const entry of built) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [join(REPO_ROOT, 'scripts/bench-tracing-invoke.ts'), String(WARMUP + ORDERS), ...entry.files],
        { env: { ...entry.env, BENCH_API_KEY: apiKey }, maxBuffer: 16 * 1024 * 1024 },
      );
      const measured = (JSON.parse(stdout.trim().split('\n').at(-1)!) as Invocation[]).slice(WARMUP);
      const figures = warm.get(entry.path.key) ?? { cpu: [], wall: [], invocations: [] };
      figures.cpu.push(median(measured.map((m) => m.cpuMs)));
      figures.wall.push(median(measured.map((m) => m.wallMs)));
      figures.invocations.push(...measured);
      warm.set(entry.path.key, figures);
    }
  }
  await new Promise((done) => setTimeout(done, 200));

  // 3. Print, with each path's proof.
  const bareCold = cold.get('bare')!;
  const floorWarm = warm.get('active-only')!;
  console.log(
    `\ntracing paths, order function with the CDK esbuild settings; cold: ${IMPORTS} fresh imports each, interleaved (median); warm: ${ROUNDS} rounds x ${ORDERS} orders each against DynamoDB Local, interleaved (median of round medians); load average ${loadAtStart} at the start, ${load()} at the end`,
  );
  console.log(
    `  bare document-client bundle ${kb(bareBytes)}: import ${median(bareCold.wall).toFixed(1)} ms (CPU ${median(bareCold.cpu).toFixed(1)} ms)`,
  );
  for (const { path, bundleBytes } of built) {
    const c = cold.get(path.key)!;
    const w = warm.get(path.key)!;
    const size = path.layer
      ? `${kb(bundleBytes)} + layer ${kb(layerBytes)} + the AWS SDK from node_modules`
      : kb(bundleBytes);
    console.log(`  ${path.title}: ${size}`);
    console.log(
      `    cold: import ${median(c.wall).toFixed(1)} ms (CPU ${median(c.cpu).toFixed(1)} ms) = ${(median(c.wall) / median(bareCold.wall)).toFixed(2)}x bare, CPU ${(median(c.cpu) / median(bareCold.cpu)).toFixed(2)}x`,
    );
    console.log(
      `    warm: thread CPU ${median(w.cpu).toFixed(2)} ms per order (${(median(w.cpu) - median(floorWarm.cpu)).toFixed(2)} ms beyond active tracing alone; rounds ${w.cpu.map((x) => x.toFixed(2)).join(', ')}), wall p50 ${median(w.wall).toFixed(2)} ms (rounds ${w.wall.map((x) => x.toFixed(2)).join(', ')})`,
    );
    const sentPerInvocation = (dynamoDbSpansSent.get(path.key) ?? 0) / (ROUNDS * (WARMUP + ORDERS));
    console.log(
      `    ${proof(path, w.invocations, received)}; ${sentPerInvocation.toFixed(1)} DynamoDB spans sent per invocation in all`,
    );
    if (process.env.BENCH_TRACING_SHOW) console.log(describeTrace(w.invocations[0]!, received));
  }
} finally {
  for (const endpoint of endpoints.values()) endpoint.close();
  await dynamoDb.stop();
  if (process.env.BENCH_TRACING_KEEP) console.log(`built paths kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

/** One invocation's spans as a tree under the function's segment. */
function describeTrace(invocation: Invocation, received: Map<string, SentSpan[]>): string {
  const trace = received.get(invocation.root.slice(2).replace('-', '')) ?? [];
  const lines: string[] = [];
  const walk = (parent: string, depth: number) => {
    for (const span of trace.filter((s) => s.parentId === parent)) {
      lines.push(
        `${'  '.repeat(depth + 3)}${span.name}${span.awsOperation ? ` (${span.awsService} ${span.awsOperation})` : ''}`,
      );
      walk(span.spanId, depth + 1);
    }
  };
  walk(invocation.parent, 0);
  const orphans = trace.filter(
    (s) => s.parentId !== invocation.parent && !trace.some((p) => p.spanId === s.parentId),
  );
  for (const span of orphans)
    lines.push(`      (parent not sent) ${span.name} ${JSON.stringify(span.attributes)}`);
  return lines.join('\n');
}

/** Whether every invocation's trace holds its span and one span under it per DynamoDB call. */
function proof(path: TracingPath, invocations: Invocation[], received: Map<string, SentSpan[]>): string {
  let complete = 0;
  let spans = 0;
  let calls = 0;
  for (const invocation of invocations) {
    const trace = received.get(invocation.root.slice(2).replace('-', '')) ?? [];
    spans += trace.length;
    const root = trace.find((span) => span.parentId === invocation.parent);
    const children = trace.filter((span) => span.awsService === 'DynamoDB' && span.parentId === root?.spanId);
    calls += children.length;
    const operations = new Set(children.map((span) => span.awsOperation));
    if (root && ORDER_CALLS.every((operation) => operations.has(operation))) complete++;
  }
  const n = invocations.length;
  const verdict = path.spans
    ? complete === n
      ? 'every invocation traced'
      : `MISSING in ${n - complete} invocations`
    : spans === 0
      ? 'nothing sent, as expected: Lambda makes the segments, no DynamoDB subsegments'
      : 'UNEXPECTED spans';
  return `spans: ${n} invocations, ${complete} with their span and a span under it for each of ${ORDER_CALLS.join(', ')}; ${(spans / n).toFixed(1)} spans and ${(calls / n).toFixed(1)} DynamoDB spans per invocation: ${verdict}`;
}
