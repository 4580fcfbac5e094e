import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrinoSQL } from 'dt-sql-parser';
import { describe, expect, it } from 'vitest';
import { openLocalLake } from '../../shared/lake/local-lake.ts';

/**
 * The example queries docs/lake.md shows the platform team: each parses as Athena's (Trino) dialect
 * and runs on the local lake's DuckDB views, so a reader can paste it into either.
 */
const examples = [...readFileSync('docs/lake.md', 'utf8').matchAll(/```sql\n([\s\S]*?)```/g)].map(
  (match) => match[1]!,
);

describe('docs/lake.md example queries', () => {
  it('shows several', () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
  });

  it.each(examples.map((sql) => [sql.split('\n')[0]!, sql]))('%s', async (_first, sql) => {
    expect(new TrinoSQL().validate(sql)).toEqual([]);
    const lake = await openLocalLake(mkdtempSync(join(tmpdir(), 'doc-queries-')));
    await expect(lake.runAndReadAll(sql)).resolves.toBeDefined();
    lake.closeSync();
  });
});
