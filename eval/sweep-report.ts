import { formatShare, type PointSummary, shareOf, type WorstCase } from './worst-case.ts';

/** What `npm run eval -- --sweep` and `-- --pool` print (eval/README.md). */
const auc = (x: number | null) => (x === null || Number.isNaN(x) ? '    -' : x.toFixed(3));

export function printPoint(
  point: PointSummary & { description: string; requests: number; seconds: number },
  measured: number,
) {
  console.log(`[${point.point}] ${point.description}`);
  console.log(`  ${point.requests} requests, ${measured} scored events measured, ${point.seconds} s`);
  printFigures(point);
}

/**
 * A point's figures: per pattern its ROC AUC and caught share, and of them those decided before
 * their evidence; per event type the good customers'.
 */
export function printFigures(point: PointSummary) {
  console.log(
    `  ${'pattern'.padEnd(33)} ${'events'.padEnd(15)} ROC AUC   ${'caught'.padEnd(22)} of them before their evidence`,
  );
  for (const p of point.patterns) {
    const early =
      p.beforeEvidence.positives > 0
        ? formatShare({ count: p.beforeEvidence.caught, of: p.beforeEvidence.positives })
        : '';
    console.log(
      `  ${p.pattern.padEnd(33)} ${p.eventTypes.padEnd(15)} ${auc(p.auc).padStart(7)}   ${formatShare({ count: p.caught, of: p.positives }).padEnd(22)} ${early}`.trimEnd(),
    );
  }
  console.log(`  good customers declined / reviewed:`);
  for (const g of point.good)
    console.log(
      `    ${g.eventType.padEnd(8)} ${formatShare({ count: g.declined, of: g.events }).padEnd(22)} / ${formatShare({ count: g.reviewed, of: g.events })}`,
    );
  console.log('');
}

/** The acceptance targets the worst case is read against (eval/README.md). */
const TARGETS = { caught: 0.9, declined: 0.005, reviewed: 0.02 } as const;
const miss = (missed: boolean, what: string) => (missed ? `  << target ${what}` : '');

export function printWorstCase(points: readonly Pick<PointSummary, 'point'>[], worst: WorstCase) {
  console.log(`Worst case across ${points.length} points (${points.map((p) => p.point).join(', ')}):`);
  console.log(
    `  ${'pattern'.padEnd(33)} ${'caught'.padEnd(22)} ${'at'.padEnd(20)} ${'once its evidence was in'.padEnd(25)} at`,
  );
  for (const [pattern, share] of [...worst.caught].sort(([a], [b]) => a.localeCompare(b))) {
    const evidenced = worst.caughtWithEvidence.get(pattern);
    const missed = [
      ...(shareOf(share) < TARGETS.caught ? ['>= 90 %'] : []),
      ...(evidenced && shareOf(evidenced) < TARGETS.caught ? ['>= 90 % once in'] : []),
    ];
    console.log(
      `  ${pattern.padEnd(33)} ${formatShare(share).padEnd(22)} ${share.point.padEnd(20)} ${evidenced ? `${formatShare(evidenced).padEnd(25)} ${evidenced.point.padEnd(20)}` : '-'.padEnd(46)}${miss(missed.length > 0, missed.join(', '))}`.trimEnd(),
    );
  }
  console.log(
    `  ${'good customers'.padEnd(12)} ${'declined'.padEnd(22)} ${'at'.padEnd(20)} ${'reviewed'.padEnd(22)} at`,
  );
  for (const [eventType, declined] of worst.declined) {
    const reviewed = worst.reviewed.get(eventType);
    const missed = [
      ...(shareOf(declined) > TARGETS.declined ? ['declined <= 0.5 %'] : []),
      ...(reviewed && shareOf(reviewed) > TARGETS.reviewed ? ['reviewed <= 2 %'] : []),
    ];
    console.log(
      `  ${eventType.padEnd(12)} ${formatShare(declined).padEnd(22)} ${declined.point.padEnd(20)} ${reviewed ? `${formatShare(reviewed).padEnd(22)} ${reviewed.point.padEnd(20)}` : '-'}${miss(missed.length > 0, missed.join(', '))}`.trimEnd(),
    );
  }
}
