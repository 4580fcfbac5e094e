/**
 * `npm test`'s import-cycle check (dpdm): no file imports itself through others, and no module (a
 * folder under shared/, or a top-level folder such as lib/ or functions/) depends on another that
 * depends back on it. Type-only imports count: they couple the modules just the same.
 * Exits 1 and prints each cycle when there is one.
 */
import { relative, sep } from 'node:path';
import { parseCircular, parseDependencyTree } from 'dpdm';

const ROOT = new URL('..', import.meta.url).pathname;
const ENTRIES = ['functions', 'shared', 'lib', 'bin', 'local', 'admin', 'scripts', 'eval'].map(
  (dir) => `${dir}/**/*.ts`,
);

const tree = await parseDependencyTree(ENTRIES, {
  context: ROOT,
  cwd: ROOT,
  tsconfig: `${ROOT}tsconfig.json`,
  transform: false,
  skipDynamicImports: false,
});

/** `shared/store/orders.ts` -> `shared/store`; `shared/errors.ts` -> `shared/errors`; `lib/x.ts` -> `lib`. */
function moduleOf(file: string): string {
  const parts = relative(ROOT, file).split(sep);
  if (parts[0] === 'shared')
    return parts.length > 2 ? `shared/${parts[1]}` : `shared/${parts[1]!.replace(/\.ts$/, '')}`;
  return parts[0]!;
}

const fileCycles = parseCircular(tree);
const edges = new Map<string, Map<string, string>>();
for (const [file, dependencies] of Object.entries(tree)) {
  if (file.includes('node_modules') || !dependencies) continue;
  const from = moduleOf(file);
  for (const dependency of dependencies) {
    if (!dependency.id || dependency.id.includes('node_modules')) continue;
    const to = moduleOf(dependency.id);
    if (to === from) continue;
    const targets = edges.get(from) ?? new Map<string, string>();
    if (!targets.has(to)) targets.set(to, `${relative(ROOT, file)} -> ${relative(ROOT, dependency.id)}`);
    edges.set(from, targets);
  }
}

/** Module cycles: a module reachable from one of its own dependencies. */
const moduleCycles: string[][] = [];
const reported = new Set<string>();
for (const [start, targets] of edges) {
  for (const next of targets.keys()) {
    const path = pathBetween(next, start);
    if (!path) continue;
    const cycle = [start, ...path];
    const id = [...cycle.slice(0, -1)].sort().join(' ');
    if (reported.has(id)) continue;
    reported.add(id);
    moduleCycles.push(cycle);
  }
}

function pathBetween(from: string, to: string): string[] | undefined {
  const previous = new Map<string, string>([[from, from]]);
  const queue = [from];
  while (queue.length > 0) {
    const current = queue.shift()!;
    if (current === to) {
      const path = [current];
      while (path[0] !== from) path.unshift(previous.get(path[0]!)!);
      return path;
    }
    for (const next of edges.get(current)?.keys() ?? []) {
      if (!previous.has(next)) {
        previous.set(next, current);
        queue.push(next);
      }
    }
  }
  return undefined;
}

const files = Object.keys(tree).filter((f) => !f.includes('node_modules')).length;
for (const cycle of fileCycles)
  console.log(`file cycle: ${cycle.map((f) => relative(ROOT, f)).join(' -> ')}`);
for (const cycle of moduleCycles) {
  console.log(`module cycle: ${cycle.join(' -> ')}`);
  cycle.slice(0, -1).forEach((from, i) => {
    console.log(`  ${edges.get(from)?.get(cycle[i + 1]!)}`);
  });
}
console.log(
  `${files} files: ${fileCycles.length} file cycles, ${moduleCycles.length} module cycles (${edges.size} modules)`,
);
process.exit(fileCycles.length + moduleCycles.length === 0 ? 0 : 1);
