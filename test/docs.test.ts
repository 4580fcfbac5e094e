import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../shared/contract/endpoints.ts';
import { ERROR_CATALOG } from '../shared/errors.ts';
import { DEFAULT_SETTINGS } from '../shared/scoring/decision-settings.ts';
import { modelFor } from '../shared/scoring/models.ts';

/**
 * The docs' checkable claims: the files they name exist, every endpoint and error code of the API is
 * in docs/api.md, the weights and defaults they quote are the code's, the README keeps its two
 * commands, and nothing in the repository points outside it.
 */
const ROOT = resolve(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const trackedNames = new Set(tracked.map((path) => basename(path)));
const DOCS = ['README.md', ...tracked.filter((path) => /^docs\/[^/]+\.md$/.test(path))];

/** What the checkout makes and git ignores (`.data/`, `.screenshots/`): named, never tracked. */
const IGNORED = read('.gitignore')
  .split('\n')
  .filter((line) => line.endsWith('/'));

/**
 * Inline code spans that name a file or folder of the repository: placeholders like `<type>`, URL
 * paths (`v1/`) and ignored folders aside.
 */
function namedPaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  return spans.filter(
    (span) =>
      /^[\w.-]+(\/[\w.-]+)*\/?$/.test(span) &&
      /(\/|\.(ts|tsx|json|md|css))$/.test(span) &&
      !/^v\d+\//.test(span) &&
      !IGNORED.some((folder) => span.startsWith(folder)),
  );
}

/** A named path exists: a path with a folder as written from the root, a bare file name anywhere. */
function exists(path: string): boolean {
  if (!path.replace(/\/$/, '').includes('/')) return trackedNames.has(path) || existsSync(join(ROOT, path));
  return existsSync(join(ROOT, path));
}

/** The text of one `## ` section of a markdown page. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

describe('docs/architecture.md', () => {
  const page = read('docs/architecture.md');

  it('names only files that exist', () => {
    const missing = namedPaths(page).filter((path) => !exists(path));
    expect(missing).toEqual([]);
  });

  it('follows one order through at most 12 files', () => {
    const files = new Set(namedPaths(section(page, 'The path of one order')).filter((p) => p.includes('/')));
    expect(files.size).toBeGreaterThan(0);
    expect(files.size).toBeLessThanOrEqual(12);
    expect(files).toContain('functions/order.ts');
    expect(files).toContain('shared/use-cases/place-order.ts');
    expect(files).toContain('shared/use-cases/scored-event.ts');
  });

  it('draws it as a Mermaid diagram', () => {
    expect(page).toMatch(/```mermaid\n/);
  });
});

describe('every page of the docs', () => {
  it.each(DOCS)('%s: the files it names in code spans exist', (path) => {
    const missing = namedPaths(read(path)).filter((named) => !exists(named));
    expect(missing).toEqual([]);
  });

  it.each(DOCS)('%s: its relative links reach files of the repository', (path) => {
    const targets = [...read(path).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^[a-z]+:/.test(target));
    const broken = targets
      .map((target) => relative(ROOT, resolve(ROOT, dirname(path), target)))
      .filter((target) => !existsSync(join(ROOT, target)));
    expect(broken).toEqual([]);
  });
});

describe('docs/api.md', () => {
  const page = read('docs/api.md');
  const document = JSON.parse(read('openapi.json')) as { paths: Record<string, unknown> };

  it('names every endpoint path of openapi.json', () => {
    const missing = Object.keys(document.paths).filter((path) => !page.includes(path));
    expect(missing).toEqual([]);
  });

  it('lists every error code of the catalog with its status', () => {
    const missing = Object.entries(ERROR_CATALOG).filter(
      ([code, { status }]) => !new RegExp(`\\| ${status} +\\| \`${code}\` +\\|`).test(page),
    );
    expect(missing.map(([code]) => code)).toEqual([]);
  });
});

describe('docs/scoring.md', () => {
  const page = read('docs/scoring.md');

  it('quotes the default models weight for weight', () => {
    const rows = new Map(
      [...page.matchAll(/^\| `(\w+)` +((?:\| [^|]+ )+)\|$/gm)]
        .map(
          (m) =>
            [
              m[1]!,
              m[2]!
                .split('|')
                .slice(1)
                .map((cell) => cell.trim()),
            ] as const,
        )
        .filter(([, cells]) => cells.length === EVENT_TYPES.length),
    );
    const expected = new Map<string, string[]>();
    for (const [index, type] of EVENT_TYPES.entries())
      for (const [name, weight] of Object.entries(modelFor(type).weights)) {
        const cells = expected.get(name) ?? EVENT_TYPES.map(() => '–');
        cells[index] = Number.isInteger(weight) ? weight.toFixed(1) : String(weight);
        expected.set(name, cells);
      }
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(expected));
  });

  it('quotes the default decision settings', () => {
    for (const type of EVENT_TYPES)
      for (const [name, value] of Object.entries(DEFAULT_SETTINGS[type])) {
        const row = page.split('\n').find((line) => line.startsWith(`| \`${name}\` `));
        expect(row, name).toBeDefined();
        expect(
          row!.split('|').map((cell) => cell.trim()),
          name,
        ).toContain(String(value));
      }
  });
});

describe('README.md', () => {
  const readme = read('README.md');

  it('is at most 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('gives the two commands, the test command the one CI runs', () => {
    const ciCommand = read('.ci/run').trim().split('\n').at(-1)!;
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain(ciCommand);
  });

  it('links every page of docs/', () => {
    const pages = tracked.filter((path) => /^docs\/[^/]+\.md$/.test(path));
    expect(pages.filter((path) => !readme.includes(`](${path})`))).toEqual([]);
  });
});

describe('the repository stands alone', () => {
  const THIS_FILE = relative(ROOT, import.meta.filename);
  const text = tracked
    .filter((path) => path !== THIS_FILE && !/\.(png|jpe?g|ico)$/.test(path))
    .map((path) => ({ path, content: read(path) }))
    .filter(({ content }) => !content.includes('\0'));

  it('no relative path leads out of it', () => {
    const escaping = text.flatMap(({ path, content }) =>
      [...content.matchAll(/(?:\.\.\/)+[\w.@-]*/g)]
        .map((m) => m[0])
        .filter((target) => relative(ROOT, resolve(ROOT, dirname(path), target)).startsWith('..'))
        .map((target) => `${path}: ${target}`),
    );
    expect(escaping).toEqual([]);
  });

  it('cites only its own docs: no outside contract, decisions or notes files, no numbered sections of them', () => {
    const outside = [
      /api-contract/i,
      /(?<!docs\/)\bdecisions\.md/,
      /domain[- ]notes/i,
      /shared\/spec\b/,
      /\bcontract \d/i,
      /\(section \d/i,
    ];
    const citing = text.flatMap(({ path, content }) =>
      outside
        // Inside docs/, `decisions.md` is the page beside it.
        .filter((pattern) => !(path.startsWith('docs/') && pattern.source.includes('decisions')))
        .filter((pattern) => pattern.test(content))
        .map((pattern) => `${path}: ${pattern.source}`),
    );
    expect(citing).toEqual([]);
  });
});
