import { formatShare, type PointSummary, type WorstCase } from './worst-case.ts';

/** What `npm run eval -- --sweep` and `-- --pool` print (eval/README.md). */
const auc = (x: number | null) => (x === null || Number.isNaN(x) ? '    -' : x.toFixed(3));

export function printPoint(
  point: PointSummary & { description: string; requests: number; seconds: number },
  measured: number,
) {
  console.log(`[${point.point}] ${point.description}`);
  console.log(`  ${point.requests} requests, ${measured} scored events measured, ${point.seconds} s`);
  console.log(`  ${'pattern'.padEnd(33)} ${'events'.padEnd(15)} ROC AUC   caught`);
  for (const p of point.patterns)
    console.log(
      `  ${p.pattern.padEnd(33)} ${p.eventTypes.padEnd(15)} ${auc(p.auc).padStart(7)}   ${formatShare({ count: p.caught, of: p.positives })}`,
    );
  console.log(`  good customers declined / reviewed:`);
  for (const g of point.good)
    console.log(
      `    ${g.eventType.padEnd(8)} ${formatShare({ count: g.declined, of: g.events }).padEnd(22)} / ${formatShare({ count: g.reviewed, of: g.events })}`,
    );
  console.log('');
}

export function printWorstCase(points: readonly Pick<PointSummary, 'point'>[], worst: WorstCase) {
  console.log(`Worst case across ${points.length} points (${points.map((p) => p.point).join(', ')}):`);
  console.log(`  ${'pattern'.padEnd(33)} ${'caught'.padEnd(22)} at`);
  for (const [pattern, share] of [...worst.caught].sort(([a], [b]) => a.localeCompare(b)))
    console.log(`  ${pattern.padEnd(33)} ${formatShare(share).padEnd(22)} ${share.point}`);
  console.log(
    `  ${'good customers'.padEnd(12)} ${'declined'.padEnd(22)} ${'at'.padEnd(20)} ${'reviewed'.padEnd(22)} at`,
  );
  for (const [eventType, declined] of worst.declined) {
    const reviewed = worst.reviewed.get(eventType);
    console.log(
      `  ${eventType.padEnd(12)} ${formatShare(declined).padEnd(22)} ${declined.point.padEnd(20)} ${reviewed ? `${formatShare(reviewed).padEnd(22)} ${reviewed.point}` : '-'}`,
    );
  }
}
