/**
 * `npm run bench -- import-profile`: where the order function's cold import spends its CPU, by
 * source module. The order function is built with the CDK's esbuild settings but not minified, so
 * that each line of the bundle comes from one source module; then imported fresh in
 * BENCH_PROFILE_RUNS processes under `--cpu-prof` (100 µs samples). Every sample's line
 * (`positionTicks`) is mapped back through the bundle's source map to the module it came from, and
 * samples outside the bundle's code are named by what ran: the parse and compile of the bundle
 * (V8's `(program)`), garbage collection, Node's own modules. Prints the CPU per package and per
 * module of ours, averaged over the runs, with the bytes each adds to the minified bundle.
 * A profile to read, never a timed test: shares are steadier than absolutes on a busy machine.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { lambdaBuildOptions, REPO_ROOT } from '../lib/lambda-bundle.ts';

const RUNS = Number(process.env.BENCH_PROFILE_RUNS ?? 10);

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
  positionTicks?: { line: number; ticks: number }[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const dir = mkdtempSync(join(tmpdir(), 'bench-import-profile-'));
try {
  const entry = join(REPO_ROOT, 'functions/order.ts');
  const minified = await build({
    ...lambdaBuildOptions(entry, join(dir, 'min', 'index.mjs')),
    metafile: true,
  });
  const bytesBySource = new Map<string, number>();
  for (const output of Object.values(minified.metafile.outputs))
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs))
      bytesBySource.set(
        owner(input, process.cwd()),
        (bytesBySource.get(owner(input, process.cwd())) ?? 0) + bytesInOutput,
      );

  const bundle = join(dir, 'index.mjs');
  await build({ ...lambdaBuildOptions(entry, bundle), minify: false });
  const map = new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')));
  const bundleUrl = `file://${bundle}`;

  const env = {
    ...process.env,
    TABLE_NAME: 'bench',
    AWS_REGION: 'us-east-1',
    POWERTOOLS_SERVICE_NAME: 'abuse-decision',
    POWERTOOLS_METRICS_NAMESPACE: 'AbuseDecision',
  };
  const microseconds = new Map<string, number>();
  let total = 0;
  for (let run = 0; run < RUNS; run++) {
    const profileDir = join(dir, `profile-${run}`);
    execFileSync(
      process.execPath,
      [
        '--cpu-prof',
        '--cpu-prof-interval',
        '100',
        '--cpu-prof-dir',
        profileDir,
        '--input-type=module',
        '-e',
        `await import(${JSON.stringify(bundle)});`,
      ],
      { env, stdio: 'ignore' },
    );
    const [file] = readdirSync(profileDir);
    const profile = JSON.parse(readFileSync(join(profileDir, file!), 'utf8')) as Profile;
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    const selfTime = new Map<number, number>();
    for (const [i, id] of profile.samples.entries())
      selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
    for (const [id, time] of selfTime) {
      const node = nodes.get(id)!;
      total += time;
      for (const [where, share] of attribute(node))
        microseconds.set(where, (microseconds.get(where) ?? 0) + time * share);
    }
  }

  const ms = (us: number) => `${(us / 1000 / RUNS).toFixed(1)} ms`;
  const ranked = [...microseconds].sort((a, b) => b[1] - a[1]);
  console.log(
    `\norder function, cold import CPU by source (${RUNS} fresh imports under --cpu-prof, mean per import; load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}): ${ms(total)} sampled`,
  );
  for (const [where, us] of ranked.slice(0, 25)) {
    const bytes = bytesBySource.get(where);
    console.log(
      `  ${ms(us).padStart(8)}  ${where}${bytes ? `  (${(bytes / 1024).toFixed(1)} KB minified)` : ''}`,
    );
  }
  const ours = ranked.filter(([where]) => isOurs(where));
  const oursTotal = ours.reduce((sum, [, us]) => sum + us, 0);
  const ourBytes = [...bytesBySource].filter(([where]) => isOurs(where)).reduce((sum, [, b]) => sum + b, 0);
  console.log(
    `our own modules (shared/, functions/, lib/): ${ms(oursTotal)} evaluating, ${(ourBytes / 1024).toFixed(0)} KB of the minified bundle to parse; top: ${ours
      .slice(0, 12)
      .map(([where, us]) => `${where} ${ms(us)}`)
      .join(', ')}`,
  );

  /** Where a sample's time goes: the modules its lines came from, by their share of its ticks. */
  function attribute(node: ProfileNode): [string, number][] {
    const { url, functionName } = node.callFrame;
    if (url !== bundleUrl) {
      if (functionName === '(program)') return [['(parse, compile and other V8 work outside JavaScript)', 1]];
      if (functionName === '(garbage collector)') return [['(garbage collection)', 1]];
      if (url.startsWith('node:'))
        return [[`(Node: ${url.replace(/^node:(internal\/)?/, '').split('/')[0]})`, 1]];
      return [[`(${functionName || 'anonymous'} ${url})`, 1]];
    }
    const ticks = node.positionTicks ?? [];
    const all = ticks.reduce((sum, t) => sum + t.ticks, 0);
    if (all === 0) return [['(bundle code, line unknown)', 1]];
    return ticks.map((t) => {
      const source = map.findEntry(t.line - 1, 0) as { originalSource?: string };
      return [source.originalSource ? owner(source.originalSource, dir) : '(bundle banner)', t.ticks / all];
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** A package (`zod`, `@aws-sdk/client-dynamodb`) or a module of ours (`shared/http/route.ts`). */
function owner(source: string, base: string): string {
  const given = source.startsWith('file://') ? new URL(source).pathname : source;
  const path = given.startsWith('/') ? given : join(base, given);
  const inPackages = path.split('node_modules/').at(-1)!;
  if (inPackages !== path) {
    const parts = inPackages.split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const fromRoot = relative(REPO_ROOT, path);
  return fromRoot.startsWith('..') ? path : fromRoot;
}

function isOurs(where: string): boolean {
  return /^(shared|functions|lib)\//.test(where);
}
