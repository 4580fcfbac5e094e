/**
 * `npm run bench -- import-profile`: where the order function's cold import spends its CPU, module by
 * module. The order function is built with the CDK's esbuild settings but not minified: esbuild then
 * writes each module's code after a `// <path>` line, in the order the modules run, and this bench
 * puts a mark there that reads the thread's CPU time. Imported fresh in BENCH_PROFILE_RUNS processes;
 * a module's figure is the CPU from its mark to the next one: its own top-level code and what that
 * code calls at once (zod building a schema, a CommonJS package required then). What runs before the
 * first mark is Node reading, parsing, compiling and linking the bundle. Prints the mean per import:
 * that part, each package and our own modules (shared/, functions/, lib/), with the bytes each puts
 * in the minified bundle (parse work grows with them). A profile to read, never a timed test.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { lambdaBuildOptions, REPO_ROOT } from '../lib/lambda-bundle.ts';

const RUNS = Number(process.env.BENCH_PROFILE_RUNS ?? 15);
/** esbuild's line before each module's code in an unminified bundle. */
const MODULE_LINE = /^\/\/ ([\w@./+-]+\.(?:[cm]?[jt]s|json))$/;

const dir = mkdtempSync(join(tmpdir(), 'bench-import-profile-'));
try {
  const entry = join(REPO_ROOT, 'functions/order.ts');
  const minified = await build({
    ...lambdaBuildOptions(entry, join(dir, 'min', 'index.mjs')),
    metafile: true,
  });
  const bytes = new Map<string, number>();
  for (const output of Object.values(minified.metafile.outputs))
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs))
      bytes.set(owner(input), (bytes.get(owner(input)) ?? 0) + bytesInOutput);

  const bundle = join(dir, 'index.mjs');
  await build({ ...lambdaBuildOptions(entry, bundle), minify: false, sourcemap: false });
  const [banner, ...lines] = readFileSync(bundle, 'utf8').split('\n');
  const marked = [
    banner,
    'const __marks = []; globalThis.__importMarks = __marks;',
    'const __importMark = (module) => { __marks.push([module, process.threadCpuUsage()]); };',
    ...lines.flatMap((line) => {
      const module = MODULE_LINE.exec(line)?.[1];
      return module ? [line, `__importMark(${JSON.stringify(module)});`] : [line];
    }),
  ];
  writeFileSync(bundle, marked.join('\n'));

  const env = {
    ...process.env,
    TABLE_NAME: 'bench',
    AWS_REGION: 'us-east-1',
    POWERTOOLS_SERVICE_NAME: 'abuse-decision',
  };
  const script = `const start = process.threadCpuUsage();
await import(${JSON.stringify(bundle)});
const end = process.threadCpuUsage();
const us = (u) => u.user + u.system;
console.log(JSON.stringify({ start: us(start), end: us(end), marks: globalThis.__importMarks.map(([m, u]) => [m, us(u)]) }));`;
  const cpu = new Map<string, number>();
  let beforeFirst = 0;
  let total = 0;
  for (let run = 0; run < RUNS; run++) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env,
      encoding: 'utf8',
    });
    const { start, end, marks } = JSON.parse(out) as {
      start: number;
      end: number;
      marks: [string, number][];
    };
    beforeFirst += (marks[0]?.[1] ?? end) - start;
    total += end - start;
    marks.forEach(([module, at], i) => {
      const next = marks[i + 1]?.[1] ?? end;
      cpu.set(owner(module), (cpu.get(owner(module)) ?? 0) + (next - at));
    });
  }

  const ms = (us: number) => `${(us / 1000 / RUNS).toFixed(1)} ms`;
  const kb = (name: string) => `${((bytes.get(name) ?? 0) / 1024).toFixed(1)} KB`;
  const ranked = [...cpu].sort((a, b) => b[1] - a[1]);
  const ours = ranked.filter(([name]) => isOurs(name));
  const sum = (list: [string, number][]) => list.reduce((all, [, us]) => all + us, 0);
  const ourBytes = [...bytes].filter(([name]) => isOurs(name)).reduce((all, [, b]) => all + b, 0);
  console.log(
    `\norder function, cold import CPU by module (unminified build, ${RUNS} fresh imports, mean per import; load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}): ${ms(total)} in all`,
  );
  console.log(
    `  ${ms(beforeFirst)} reading, parsing, compiling and linking the bundle, before any module runs`,
  );
  console.log('  packages, and our own modules together, running their top-level code:');
  for (const [name, us] of [
    ...ranked.filter(([name]) => !isOurs(name)),
    ['our own modules', sum(ours)] as [string, number],
  ]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15))
    console.log(
      `  ${ms(us).padStart(8)}  ${name}  (${name === 'our own modules' ? `${(ourBytes / 1024).toFixed(1)} KB` : kb(name)} minified)`,
    );
  console.log(`  our own modules, top ${Math.min(15, ours.length)} of ${ours.length}:`);
  for (const [name, us] of ours.slice(0, 15))
    console.log(`  ${ms(us).padStart(8)}  ${name}  (${kb(name)} minified)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** A package (`zod`, `@aws-sdk/client-dynamodb`) or a module of ours (`shared/http/route.ts`). */
function owner(path: string): string {
  const inPackages = path.split('node_modules/').at(-1)!;
  if (inPackages === path) return path;
  const parts = inPackages.split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

function isOurs(name: string): boolean {
  return /^(shared|functions|lib)\//.test(name);
}
