import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sparticuzChromium from '@sparticuz/chromium';
import { type Browser, type BrowserContextOptions, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFormat, type Format, resolveLocale } from '../../dashboard/src/format.ts';
import { newMerchant, withTestApi } from '../support/api.ts';
import { countersOf, disputeEntry, emailOf, placeOrder } from '../support/commerce.ts';
import {
  consoleKey,
  HOSTILE_TEXT,
  orderAndReturn,
  reviewEveryReturn,
  saveWorkflow,
  seedHostileText,
} from '../support/console.ts';
import { orderBody, uid } from '../support/fixtures.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

vi.hoisted(() => {
  process.env.EXPORTS_BUCKET = 'exports-test';
  // A table of its own with a stream: the nightly item counts the trade-off from a lake fed by it.
  process.env.TABLE_NAME = `browser-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
});
const { createOwnTable, dropOwnTable } = await import('../support/table-snapshot.ts');
await createOwnTable({ stream: true });
const { caughtUpLake } = await import('../../local/lake-runner.ts');
const { overviewFeed } = await import('../../local/overview-poller.ts');
const { runPendingBacktests } = await import('../../shared/use-cases/backtests.ts');
const { runLearningLocally } = await import('../support/learning-state-machine.ts');
// Privacy exports go to an S3 stand-in, as under `npm start`.
const { startS3ObjectServer } = await import('../../local/s3-stand-in.ts');
const s3 = await startS3ObjectServer();
process.env.S3_ENDPOINT = s3.endpoint;

const { CSV_COLUMNS } = await import('../../shared/console/dispositions-upload.ts');
const { getRecord } = await import('../../shared/store/record-once.ts');
const { keys } = await import('../../shared/store/keys.ts');
const { runWebhookWorker } = await import('../../shared/use-cases/deliver-webhooks.ts');
const { drainNetworkQueue } = await import('../../shared/use-cases/network-worker.ts');
const { runPrivacyWorker } = await import('../../shared/use-cases/privacy-requests.ts');
const { runUploadWorker } = await import('../../shared/use-cases/record-upload.ts');

/**
 * The console in a real browser (headless Chromium from npm: @sparticuz/chromium driven by
 * playwright-core) against the local server and DynamoDB Local, once per locale: the browser's own
 * (no locale given, as a person's machine would start it; here Chromium reports `en-US@posix`,
 * which Intl refuses), German, and Arabic (right to left). One person's session, page after page;
 * a screenshot of each page goes to .screenshots/<locale>/ (git-ignored) to be looked at.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const VIEWPORT = { width: 1280, height: 800 };
const DAY = 86_400_000;
const LOCALES: { name: string; context: BrowserContextOptions; direction?: 'ltr' | 'rtl' }[] = [
  { name: 'default', context: {} },
  { name: 'de-DE', context: { locale: 'de-DE', timezoneId: 'Europe/Berlin' }, direction: 'ltr' },
  { name: 'ar-EG', context: { locale: 'ar-EG', timezoneId: 'Africa/Cairo' }, direction: 'rtl' },
];

/** The chart library's chunk and stylesheet, as built (dist/.vite/manifest.json). */
function chartChunkFiles(): string[] {
  const manifest = JSON.parse(
    readFileSync(join(ROOT, 'dashboard', 'dist', '.vite', 'manifest.json'), 'utf8'),
  );
  const entry = manifest['index.html'];
  const chunk = manifest['src/components/uplot-chunk.ts'];
  // Reached only through import(): nothing at start-up pulls it in.
  expect(entry.dynamicImports).toContain('src/components/uplot-chunk.ts');
  expect(entry.imports ?? []).not.toContain('src/components/uplot-chunk.ts');
  return [chunk.file, ...(chunk.css ?? [])].map((file: string) => `/${file}`);
}

/** ASCII digits for the locale's own (Arabic-Indic ٠-٩, Persian ۰-۹), to read a score in any locale. */
const asciiDigits = (text: string) =>
  text.replace(/[\u0660-\u0669\u06F0-\u06F9]/g, (digit) => String(digit.charCodeAt(0) & 0xf));

const suite = withTestApi();
/** The overview's counters fed from the table's stream, as `npm start`'s poller feeds them. */
const feedOverview = overviewFeed();
let browser: Browser;
let chartChunk: string[];
let hostile: Awaited<ReturnType<typeof seedHostileText>>;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: await sparticuzChromium.executablePath(),
    // Its arguments are for AWS Lambda. Under --single-process every browser context after the first
    // goes wrong (closing one ends the browser; cookies() of the others reads empty), and the suite
    // opens one context per locale.
    args: sparticuzChromium.args.filter((arg) => arg !== '--single-process'),
    headless: true,
  });
  chartChunk = chartChunkFiles();
  // Seeded once, looked at in every locale.
  hostile = await seedHostileText(
    suite.api,
    suite.apiKey,
    await consoleKey(suite.merchantId, 'eve@acme.example'),
  );
  // The rule's reason words lead each decision's reason: the merchant's text is in what is shown.
  expect(hostile.order.reason.startsWith(`${HOSTILE_TEXT}; `)).toBe(true);
  expect(hostile.return.reason.startsWith(`${HOSTILE_TEXT}; `)).toBe(true);
  await feedOverview();
});
afterAll(async () => {
  await browser?.close();
  await s3.close();
  await dropOwnTable();
});

/** A page in its own browser context, with what it asked the server for and what went wrong on it. */
async function openPage(context: BrowserContextOptions, init?: () => void) {
  const browserContext = await browser.newContext({ viewport: VIEWPORT, ...context });
  if (init) await browserContext.addInitScript(init);
  const page = await browserContext.newPage();
  page.setDefaultTimeout(15_000);
  const seen = { requests: [] as string[], pageErrors: [] as string[], dialogs: [] as string[] };
  page.on('request', (request) => seen.requests.push(new URL(request.url()).pathname));
  page.on('pageerror', (error) => seen.pageErrors.push(error.message));
  page.on('dialog', (dialog) => {
    seen.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('console', (message) => message.type() === 'error' && console.error('console:', message.text()));
  return { page, seen, close: () => browserContext.close() };
}

const visible = (locator: Locator) => locator.waitFor({ state: 'visible' });
/** expect.poll with the pages' patience (its own default is one second). */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000 });
const hasText = (locator: Locator, text: string | RegExp) =>
  eventually(async () => (await locator.first().textContent()) ?? '').toMatch(
    typeof text === 'string' ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : text,
  );
/** Like hasText, reading the locale's digits as ASCII ones (a figure in any locale). */
const hasFigures = (locator: Locator, text: RegExp) =>
  eventually(async () => asciiDigits((await locator.first().textContent()) ?? '')).toMatch(text);
const navTo = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name }).click();

async function signIn(page: Page, baseUrl: string, key: string) {
  await page.goto(`${baseUrl}/`);
  await page.getByLabel('Console key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await visible(page.getByRole('heading', { name: 'Overview', level: 1 }));
}

it('starts when the browser reports a language Intl refuses (en-US@posix), chart included', async () => {
  // What Chromium reports on a machine whose locale is POSIX, forced here whatever this machine says.
  const { page, seen, close } = await openPage({}, () => {
    Object.defineProperty(Navigator.prototype, 'language', { get: () => 'en-US@posix' });
    Object.defineProperty(Navigator.prototype, 'languages', { get: () => ['en-US@posix'] });
  });
  try {
    await page.goto(`${suite.api.baseUrl}/`);
    expect(await page.evaluate(() => navigator.language)).toBe('en-US@posix');
    await visible(page.getByLabel('Console key'));
    await signIn(page, suite.api.baseUrl, hostile.consoleKey);
    await visible(page.locator('.chart canvas'));
    expect(await page.evaluate(() => navigator.language)).toBe('en-US@posix');
    expect(seen.pageErrors).toEqual([]);
  } finally {
    await close();
  }
});

describe.each(LOCALES)('merchant console in Chromium, $name locale', ({ name, context, direction }) => {
  const screenshots = join(ROOT, '.screenshots', name);
  let page: Page;
  let seen: Awaited<ReturnType<typeof openPage>>['seen'];
  let close: () => Promise<void>;
  let merchant: { merchantId: string; apiKey: string };
  let key: string;
  /** The page's own locale, as the console resolves it: what the expected text is formatted in. */
  let format: Format;

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    ({ page, seen, close } = await openPage(context));
    merchant = await newMerchant();
    key = await consoleKey(merchant.merchantId, 'ana@acme.example');
  });
  afterAll(() => close?.());
  afterEach(() => {
    // Nothing thrown uncaught, no dialog opened, whatever the page.
    expect(seen.pageErrors).toEqual([]);
    expect(seen.dialogs).toEqual([]);
  });

  /** A screenshot, after checking the page fits 1280 px wide (no horizontal scroll). */
  async function shoot(shot: string) {
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(width, `${shot} fits the viewport`).toBeLessThanOrEqual(VIEWPORT.width);
    await page.screenshot({ path: join(screenshots, `${shot}.png`), fullPage: true });
  }
  const nav = (linkName: string) => navTo(page, linkName);

  it('signs in with the keyboard at http://127.0.0.1, without fetching the chart library first', async () => {
    await page.goto(`${suite.api.baseUrl}/`);
    await visible(page.getByRole('heading', { name: 'Abuse-decision console' }));
    await visible(page.getByLabel('Console key'));
    format = createFormat(
      resolveLocale(await page.evaluate(() => [...navigator.languages, navigator.language])),
    );
    const documentDirection = await page.evaluate<string>('document.documentElement.dir');
    expect(documentDirection).toBe(direction ?? format.direction);
    expect(seen.requests.filter((path) => chartChunk.includes(path))).toEqual([]);
    await shoot('sign-in');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement?.id ?? ""')).toBe('console-key');
    await page.keyboard.type(key);
    await page.keyboard.press('Enter');
    await visible(page.getByRole('heading', { name: 'Overview', level: 1 }));
    const cookies = await page.context().cookies();
    expect(cookies).toEqual([
      expect.objectContaining({ name: 'console_session', httpOnly: true, secure: true, sameSite: 'Strict' }),
    ]);
    // The key itself is nowhere in the browser's storage.
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
    expect(stored).not.toContain(key);
  });

  it('shows an empty queue, then a REVIEW return created through the API with its explanation', async () => {
    await nav('Review queue');
    await visible(page.getByText('No reviews waiting'));
    await shoot('reviews-empty');

    expect((await saveWorkflow(suite.api, key, 'return', reviewEveryReturn)).status).toBe(200);
    const email = `${uid('shopper')}@example.com`;
    const first = await orderAndReturn(suite.api, merchant.apiKey, { email });
    await page.reload();
    const providerId = first.returnBody.providerReturnId;
    await page.getByRole('link', { name: providerId }).click();
    await eventually(() => new URL(page.url()).searchParams.get('review')).toMatch(/^rev_/);
    await hasText(page.getByRole('region', { name: 'Explanation' }), 'review_all_returns');
    await visible(page.getByRole('table', { name: 'Signals' }));
    // Dates and numbers in the page's locale (Arabic-Indic digits in ar-EG).
    const queued = (await page.locator('table.queue tbody td').nth(2).textContent()) ?? '';
    const localDigits = [...Array(10).keys()].map((digit) => format.number(digit)).join('');
    const digitsShown = [...queued].filter((c) => /\p{Nd}/u.test(c));
    expect(digitsShown.length, queued).toBeGreaterThanOrEqual(6);
    expect(
      digitsShown.filter((c) => !localDigits.includes(c)),
      queued,
    ).toEqual([]);
    await shoot('review-detail');
    const scoreOf = async (heading: Locator) =>
      Number(asciiDigits((await heading.textContent()) ?? '').match(/abuse score (\d+)/)?.[1]);
    const firstScore = await scoreOf(page.getByRole('region', { name: 'Explanation' }).locator('h3').first());

    await page.getByLabel('Abuse').check();
    await page.getByLabel('Note').fill('Empty box came back');
    await page.getByRole('button', { name: 'Resolve' }).click();
    await visible(page.getByText('Resolved as abuse by ana@acme.example'));

    // The customer's next return is scored with the label counted.
    const second = await orderAndReturn(suite.api, merchant.apiKey, { email });
    await nav('Decision search');
    await page.getByLabel('Event type').selectOption('return');
    await page.getByLabel('providerReturnId').fill(second.returnBody.providerReturnId);
    await page.getByRole('button', { name: 'Search' }).click();
    const heading = page.getByRole('region', { name: 'Explanation' }).locator('h3').first();
    await hasText(heading, 'abuse score');
    expect(await scoreOf(heading)).toBeGreaterThan(firstScore);
    // Counters in words, in the right number ("1 abusive return", not "1 abusive returns").
    await visible(page.getByText(/email: .*\b1 abusive return\b(?!s)/));
    await shoot('decision-search');
  });

  it('refuses a CSV with a bad row (nothing recorded, the row shown), then records a good one', async () => {
    const { order, returnBody } = await orderAndReturn(suite.api, merchant.apiKey);
    const sku = order.lineItems[0]!.identifiers[0]!.identifier;
    const row = (condition: string) =>
      `${returnBody.providerReturnId},SKU,${sku},${condition},REMOVE_SUSPECT_ABUSE,DROPOFF,CASH,WH-1,,,`;
    await nav('Dispositions upload');
    expect(await page.getByRole('link', { name: 'Download the template' }).getAttribute('download')).toBe(
      'dispositions-template.csv',
    );
    const upload = async (file: string, lines: string[]) => {
      await page.getByLabel('CSV file').setInputFiles({
        name: file,
        mimeType: 'text/csv',
        buffer: Buffer.from([CSV_COLUMNS.join(','), ...lines].join('\n')),
      });
      await page.getByRole('button', { name: 'Upload' }).click();
    };
    await upload('bad.csv', [row('EMPTY_BOX'), row('SHREDDED')]);
    const errors = page.getByRole('table', { name: 'Rows to fix (nothing was recorded)' });
    await hasText(errors, 'returnedItemCondition');
    await eventually(() => errors.locator('tbody tr').count()).toBe(1);
    await hasText(errors.locator('tbody tr'), `${format.number(3)}returnedItemConditionunknown_enum_value`);
    await hasText(page.getByRole('alert'), 'request id');
    await shoot('dispositions-errors');
    expect(
      await getRecord(keys.returnDispositions(merchant.merchantId, returnBody.providerReturnId)),
    ).toBeUndefined();

    // A valid file is accepted at once; its job records it (here the worker runs when the test says).
    await upload('good.csv', [row('EMPTY_BOX')]);
    const totals = `${format.count(1, 'row')} for ${format.count(1, 'return')}`;
    await hasText(
      page.locator('.notice'),
      `Recording ${totals}: ${format.number(0)} of ${format.number(1)} done`,
    );
    await eventually(() => new URL(page.url()).searchParams.get('upload')).toMatch(/^upl_/);
    await visible(page.getByRole('progressbar', { name: 'Recording progress' }));
    expect((await countersOf(merchant.merchantId, emailOf(order))).c_abr).toBeUndefined();
    await shoot('dispositions-recording');
    await runUploadWorker({ merchantId: merchant.merchantId });
    const recorded = `Recorded ${totals}: ${format.number(1)} newly recorded, ${format.number(0)} already`;
    await hasText(page.getByRole('status'), recorded);
    expect((await countersOf(merchant.merchantId, emailOf(order))).c_abr).toBe(1);
    await shoot('dispositions-recorded');
    // The job is in the URL: a reload shows the same result.
    await page.reload();
    await hasText(page.getByRole('status'), recorded);
  });

  it('keeps a rule with a typo from being saved, then backtests, saves, and a live order follows it', async () => {
    await page.goto(`${suite.api.baseUrl}/workflows?type=order`);
    const condition = page.getByLabel('Condition').first();
    await condition.fill('abuseScroe >= 0');
    await hasText(page.locator('.field-errors'), 'abuseScroe');
    await eventually(() => page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await eventually(() => page.getByRole('button', { name: 'Backtest' }).isDisabled()).toBe(true);
    await shoot('workflow-typo');
    expect((await suite.api.request('GET', '/v1/workflows/order', { apiKey: key })).body.source).toBe(
      'default',
    );

    await condition.fill('abuseScore >= 0');
    await visible(page.getByText('No problems found.'));
    await page.getByRole('button', { name: 'Backtest' }).click();
    // The backtest is a job: the page follows it until the job (the local poller's pass) has run.
    await visible(page.getByRole('progressbar', { name: 'Backtest progress' }));
    await eventually(() => page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await shoot('workflow-backtest-running');
    await runPendingBacktests(await caughtUpLake(mkdtempSync(join(tmpdir(), 'browser-lake-'))));
    await hasText(page.getByRole('region', { name: 'Backtest' }), 'would change outcome');
    await hasText(page.getByRole('region', { name: 'Backtest' }), 'Every decision of the window.');
    await page.getByRole('button', { name: 'Save' }).click();
    await visible(page.getByText(/Saved as version wf_/));
    await hasText(page.getByRole('region', { name: 'Versions' }), 'by ana@acme.example');
    await shoot('workflow-saved');

    const live = await suite.api.post('/v1/order', orderBody(), { apiKey: merchant.apiKey });
    expect(live.body.cartLevelDecisions[0].decisions[0]).toMatchObject({
      decision: 'DECLINE',
      subDecision: 'high_abuse_score',
    });
    // Put the default back for the rest of the suite's orders.
    await saveWorkflow(suite.api, key, 'order', {
      rules: [{ name: 'high_abuse_score', decision: 'DECLINE', condition: 'abuseScore >= modelDeclineAt' }],
      defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
    });
  });

  it('shows the trade-off of every threshold, saves the economics, then backtests and saves a threshold', async () => {
    // Labeled orders: 61-80 days old (their label window closed), 4 of them a ring's on one card,
    // charged back as fraud.
    const start = Date.now() - 80 * DAY;
    const card = { BIN: '455600', last4: '0077', expiry: '03/30' };
    for (let i = 0; i < 40; i++) {
      const timestamp = start + i * 12 * 3_600_000;
      const ring = i % 10 === 3;
      const order = await placeOrder(suite.api, merchant.apiKey, ring ? { timestamp, card } : { timestamp });
      if (!ring) continue;
      const dispute = { dispute: [disputeEntry({ disputeStatus: 'LOST', timestamp: start + 30 * DAY })] };
      await suite.api.post(`/v1/order/dispute/${order.providerOrderId}`, dispute, {
        apiKey: merchant.apiKey,
      });
    }
    await placeOrder(suite.api, merchant.apiKey);
    // The nightly item counts the 90 days from the lake; the page reads what it kept.
    const lake = await caughtUpLake(mkdtempSync(join(tmpdir(), 'browser-lake-')));
    await runLearningLocally({ merchantId: merchant.merchantId, eventType: 'order' }, { lake });
    await nav('Trade-off');
    const tradeoff = page.getByRole('region', { name: 'Trade-off' });
    await hasFigures(tradeoff, /4\d labeled events \(4 abusive/);
    await visible(tradeoff.locator('.chart canvas'));
    // Too few good orders to measure the budget yet: the guard's default 50 is the live threshold.
    await hasFigures(
      page.getByRole('table', { name: 'Live and chosen thresholds' }),
      /Live: DECLINE from 50/,
    );
    await hasText(tradeoff, 'DECLINE from 50, the default until 460 good labeled events');
    await shoot('tradeoffs');

    const margin = page.getByLabel('Gross margin (0-1)');
    await margin.fill('1.5');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await hasText(page.getByRole('alert'), 'grossMargin');
    await margin.fill('0.25');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await visible(page.getByText('Saved: new decisions use these numbers.'));
    const settings = await suite.api.request('GET', '/v1/settings/order', { apiKey: key });
    expect(settings.body).toMatchObject({ settings: { grossMargin: 0.25 }, updatedBy: 'ana@acme.example' });

    await page.getByLabel('DECLINE from').fill('60');
    await page.getByRole('button', { name: 'Use these thresholds' }).click();
    await visible(page.getByText('Thresholds from the Trade-off page'));
    expect(new URL(page.url()).pathname).toBe('/workflows');
    await eventually(() => page.getByLabel('Condition').first().inputValue()).toBe('abuseScore >= 60');
    await visible(page.getByText('No problems found.'));
    await page.getByRole('button', { name: 'Backtest' }).click();
    await runPendingBacktests(await caughtUpLake(mkdtempSync(join(tmpdir(), 'browser-lake-'))));
    await hasText(page.getByRole('region', { name: 'Backtest' }), 'would change outcome');
    await page.getByRole('button', { name: 'Save' }).click();
    await visible(page.getByText(/Saved as version wf_/));
    await shoot('tradeoffs-workflow');
    const live = await suite.api.request('GET', '/v1/workflows/order', { apiKey: key });
    expect(live.body.workflow.rules[0]).toMatchObject({ decision: 'DECLINE', condition: 'abuseScore >= 60' });
    // The default rule back for the rest of the suite.
    await saveWorkflow(suite.api, key, 'order', {
      rules: [{ name: 'high_abuse_score', decision: 'DECLINE', condition: 'abuseScore >= modelDeclineAt' }],
      defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
    });
  });

  it('shows the overview charts and the audit log of the changes; a page opened directly skips the chart library', async () => {
    await placeOrder(suite.api, merchant.apiKey);
    await feedOverview();
    await nav('Overview');
    await visible(page.getByText('Decisions per day'));
    await visible(page.locator('.chart canvas'));
    expect(seen.requests.filter((path) => chartChunk.includes(path)).length).toBeGreaterThan(0);
    await shoot('overview');

    seen.requests.length = 0;
    await page.goto(`${suite.api.baseUrl}/audit`);
    const log = page.getByRole('table');
    await hasText(log, 'Review resolved');
    await hasText(log, 'Workflow saved');
    await hasText(log, 'Dispositions uploaded');
    await hasText(log, 'ana@acme.example');
    expect(seen.requests.filter((path) => chartChunk.includes(path))).toEqual([]);
    await shoot('audit');
  });

  it('adds a webhook endpoint (secret shown once), sends a test event the worker delivers, lists it', async () => {
    const receiver = await startWebhookReceiver();
    try {
      await nav('Webhooks');
      await visible(page.getByText('No webhook endpoints yet'));
      await page.getByLabel('URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await hasText(page.getByRole('status'), /shown only now: whsec_/);
      await page.getByRole('link', { name: receiver.url }).click();
      await page.getByRole('button', { name: 'Send test event' }).click();
      await visible(page.getByText('Test event queued'));
      await runWebhookWorker({ merchantId: merchant.merchantId, policy: 'permissive' });
      expect(JSON.parse(receiver.received[0]?.body ?? '{}').type).toBe('webhook.test');
      await page.getByRole('button', { name: 'Refresh' }).click();
      await hasText(
        page.getByRole('region', { name: 'Endpoint', exact: true }).getByRole('table'),
        'delivered',
      );
      await shoot('webhooks');
    } finally {
      await receiver.close();
    }
  });

  it('shows the error page, with the request id and a way back, when a page cannot render an answer', async () => {
    const requestId = `req_${uid('unrenderable')}`;
    const isOverview = (url: URL) => url.pathname === '/v1/overview';
    await page.route(isOverview, (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        headers: { 'X-Request-Id': requestId },
        body: JSON.stringify({ from: '2026-01-01', to: '2026-01-14', days: null, scoreBands: null }),
      }),
    );
    try {
      await nav('Overview');
      const failure = page.getByRole('alert').filter({ hasText: 'This page could not be shown' });
      await hasText(failure, /TypeError: .+/);
      await hasText(failure, requestId);
      // The console around the page still works: the header, the other pages.
      await visible(page.getByRole('navigation', { name: 'Pages' }));
      expect(await failure.getByRole('link', { name: 'Back to the overview' }).getAttribute('href')).toBe(
        '/overview',
      );
      await shoot('error-page');
    } finally {
      await page.unroute(isOverview);
    }
    await page.getByRole('button', { name: 'Try again' }).click();
    await visible(page.locator('.chart canvas'));
    expect(await page.getByText('This page could not be shown').count()).toBe(0);
  });

  it('shows ids and reasons a merchant sent as text, exactly as sent, on every page that shows them', async () => {
    const viewer = await openPage(context);
    const other = viewer.page;
    /** No element came from the text (`<img src=x onerror=…>`), no dialog opened. */
    const nothingInterpreted = async () => {
      expect(await other.locator('img[src="x"], [onerror]').count()).toBe(0);
      expect(viewer.seen.dialogs).toEqual([]);
    };
    const texts = (selector: string) => other.locator(selector).allTextContents();
    try {
      await signIn(other, suite.api.baseUrl, hostile.consoleKey);
      // The overview counts reasons by the deciding branch (a reason's text carries figures).
      await eventually(() => texts('h2 + table tbody td:first-child')).toEqual(
        expect.arrayContaining(['every_event']),
      );
      await nothingInterpreted();

      await navTo(other, 'Review queue');
      await eventually(() => texts('table.queue tbody a')).toEqual([hostile.return.providerReturnId]);
      expect(await texts('table.queue tbody td.clip')).toEqual([hostile.return.reason]);
      await nothingInterpreted();
      const reviewLink = other
        .locator('table.queue tbody a')
        .filter({ hasText: hostile.return.providerReturnId });
      await reviewLink.click();
      await eventually(() => texts('.detail h2 .provider-id')).toEqual([hostile.return.providerReturnId]);
      expect(await texts('.detail .explanation p.reason')).toEqual([hostile.return.reason]);
      await nothingInterpreted();
      await other.screenshot({ path: join(screenshots, 'hostile-review.png'), fullPage: true });

      for (const [type, label, id] of [
        ['order', 'providerOrderId', hostile.order.providerOrderId],
        ['return', 'providerReturnId', hostile.return.providerReturnId],
      ] as const) {
        await navTo(other, 'Decision search');
        await other.getByLabel('Event type').selectOption(type);
        await other.getByLabel(label).fill(id);
        await other.getByRole('button', { name: 'Search' }).click();
        await eventually(() => texts('main h2 .provider-id')).toEqual([id]);
        expect(new URL(other.url()).searchParams.get('id')).toBe(id);
        await nothingInterpreted();
      }
      await other.screenshot({ path: join(screenshots, 'hostile-decision.png'), fullPage: true });
      expect(viewer.seen.pageErrors).toEqual([]);
    } finally {
      await viewer.close();
    }
  });

  it('lists the feedback rules’ entries, adds a card to the block list, removes it, and switches a rule', async () => {
    await nav('Lists');
    // The review resolved as abuse above put its return's identities on the watch list.
    const entries = page.getByRole('table', { name: 'List entries' });
    await hasText(entries, 'abuseReview');
    await page.getByLabel('Source').selectOption('feedback');
    await expect.poll(() => new URL(page.url()).searchParams.get('source')).toBe('feedback');
    await hasText(entries, 'watch');

    const form = page.getByRole('form', { name: 'Add an entry' });
    await form.getByLabel('List').selectOption('block');
    await form.getByLabel('Kind').selectOption('card');
    await form.getByLabel('BIN (first 6-8 digits)').fill('411111');
    await form.getByLabel('Last 4 digits').fill('4242');
    await form.getByLabel('Expiry (MM/YY, as orders send it)').fill('09/27');
    await form.getByLabel('Reason').fill('Issuer confirmed stolen');
    await form.getByLabel('order', { exact: true }).check();
    await form.getByRole('button', { name: 'Add to list' }).click();
    await hasText(form.getByRole('status'), 'Added card 411111…4242 09/27 to the block list (in force)');
    await page.getByLabel('Source').selectOption('');
    await hasText(entries, 'card 411111…4242 09/27');
    await shoot('lists');
    const blocked = await suite.api.post(
      '/v1/order',
      orderBody({
        card: { BIN: '411111', last4: '4242', expiry: '09/27' },
        timestamp: Date.now(),
      }),
      { apiKey: merchant.apiKey },
    );
    expect(blocked.body.cartLevelDecisions[0].decisions[0]).toMatchObject({ subDecision: 'block_list' });

    await page.getByRole('button', { name: 'Remove card 411111…4242 09/27' }).click();
    await page.getByRole('button', { name: 'Confirm removing card 411111…4242 09/27' }).click();
    await expect.poll(() => entries.getByText('card 411111…4242 09/27').count()).toBe(0);

    const rules = page.getByRole('form', { name: 'Feedback rules' });
    await rules.getByLabel(/Reviews resolved as abuse/).uncheck();
    await rules.getByRole('button', { name: 'Save rules' }).click();
    await hasText(rules.getByRole('status'), 'Feedback rules saved');
    expect((await suite.api.request('GET', '/v1/list-rules', { apiKey: key })).body.abuseReview).toBe(false);
    await shoot('lists-rules');
  });

  it('joins the network after a confirmation, the audit log names it, and leaves it again', async () => {
    const membership = async () => (await suite.api.request('GET', '/v1/network', { apiKey: key })).body;
    await nav('Network');
    const section = page.getByRole('region', { name: 'Network membership' });
    await visible(section.getByRole('heading', { name: 'You are not a member' }));
    expect(await membership()).toEqual({ enabled: false });

    await section.getByRole('button', { name: 'Join the network' }).click();
    await section.getByRole('button', { name: 'Confirm joining' }).click();
    await hasText(section.getByRole('status'), 'Joined the network.');
    await visible(section.getByRole('heading', { name: 'You are a member' }));
    const joined = await membership();
    expect(joined).toMatchObject({ enabled: true, changedAt: expect.any(String) });
    // Since when: the moment the API recorded, shown in the page's locale and time zone.
    await eventually(() => section.locator('time').getAttribute('datetime')).toBe(joined.changedAt);
    await shoot('network');

    await nav('Audit log');
    const log = page.getByRole('table');
    await hasText(log, 'Network membership changed');
    await hasText(log, 'joined: confirmed abuse and first sightings contribute');

    await nav('Network');
    await section.getByRole('button', { name: 'Leave the network' }).click();
    await hasText(section.locator('.notice'), 'Leaving withdraws everything you contributed');
    await section.getByRole('button', { name: 'Confirm leaving' }).click();
    await hasText(section.getByRole('status'), 'Left the network: your contributions are being withdrawn.');
    await visible(section.getByRole('heading', { name: 'You are not a member' }));
    await hasFigures(section, /Withdrawing your contributions: 0 identities so far/);
    expect(await membership()).toMatchObject({ enabled: false, changedAt: expect.any(String) });
    await drainNetworkQueue({ merchantId: merchant.merchantId });
    await page.reload();
    await hasText(section, 'Contributions withdrawn:');
    expect((await membership()).withdrawal).toMatchObject({ status: 'done' });
  });

  it('exports and erases one customer: a bad value shown beside its field, an erasure confirmed first, both done with counts and the link', async () => {
    const exported = await placeOrder(suite.api, merchant.apiKey, {
      email: `${uid('export')}@example.com`,
      card: { BIN: '466666', last4: '1234', expiry: '07/31' },
      timestamp: Date.now(),
    });
    const erased = await placeOrder(suite.api, merchant.apiKey, {
      email: `${uid('erase')}@example.com`,
      timestamp: Date.now(),
    });
    const emailIn = (order: typeof exported) => order.customer.contactInformation[0]!.address as string;
    await nav('Privacy');
    const form = page.getByRole('form', { name: 'Erase or export a customer' });
    const requests = page.getByRole('region', { name: 'Requests' });
    await visible(requests.getByText('No privacy requests yet'));

    // A malformed e-mail on the second line: refused, shown under the e-mails at its line; nothing filed.
    const emails = form.getByLabel(/^E-mails/);
    await emails.fill(`${emailIn(exported)}\nnot-an-email`);
    await form.getByRole('button', { name: 'Export this customer' }).click();
    await hasFigures(
      page.locator('#privacy-emails-error'),
      /^Line 2: Invalid email address\. \(request id \S+\)$/,
    );
    expect(await emails.getAttribute('aria-invalid')).toBe('true');
    await shoot('privacy-error');
    expect((await suite.api.request('GET', '/v1/privacy/requests', { apiKey: key })).body.items).toEqual([]);

    await emails.fill(emailIn(exported));
    const card = form.getByRole('group', { name: /^Card/ }).first();
    await card.getByLabel('BIN (first 6-8 digits)').fill('466666');
    await card.getByLabel('Last 4 digits').fill('1234');
    await card.getByLabel('Expiry (MM/YY, as orders send it)').fill('07/31');
    await form.getByRole('button', { name: 'Export this customer' }).click();
    await hasText(form.getByRole('status'), /Export requested \(prv_\w+\)/);
    expect(await emails.inputValue()).toBe('');

    // An erasure asks first, saying it cannot be undone; Cancel files nothing.
    await form.getByLabel(/^Erase:/).check();
    await emails.fill(emailIn(erased));
    await form.getByRole('button', { name: 'Erase this customer…' }).click();
    const confirmation = form.getByRole('alertdialog', { name: 'Confirm the erasure' });
    await hasText(confirmation, 'An erasure cannot be undone.');
    await shoot('privacy-erase-confirm');
    await confirmation.getByRole('button', { name: 'Cancel' }).click();
    await form.getByRole('button', { name: 'Erase this customer…' }).click();
    await confirmation.getByRole('button', { name: 'Erase for good' }).click();
    await hasText(form.getByRole('status'), /Erasure requested \(prv_\w+\)/);

    const table = requests.getByRole('table', { name: 'Privacy requests' });
    const rows = table.locator('tbody tr');
    await eventually(() => rows.count()).toBe(2);
    await hasText(rows.nth(0), 'pending');
    await hasFigures(rows.nth(0), /Erase prv_\w+1 e-mail/);
    await hasFigures(rows.nth(1), /Export prv_\w+1 e-mail, 1 card/);

    // The worker runs them; the page, reading the list again while any is pending, shows them done.
    await runPrivacyWorker();
    await hasFigures(rows.nth(0), /done.*1 event, .*1 identity\b/);
    await hasFigures(rows.nth(1), /done.*1 event, .*2 identities/);
    const download = rows.nth(1).getByRole('link', { name: 'Download' });
    const document = JSON.parse(await (await fetch((await download.getAttribute('href'))!)).text());
    expect(JSON.stringify(document.records)).toContain(exported.providerOrderId);
    expect(await rows.nth(0).getByRole('link').count()).toBe(0);
    // The list names no customer: the values typed are nowhere on the page once filed.
    const shown = (await requests.textContent()) ?? '';
    for (const value of [emailIn(exported), emailIn(erased), '466666']) expect(shown).not.toContain(value);
    await shoot('privacy');
    const gone = await suite.api.request('GET', `/v1/decisions/order/${erased.providerOrderId}`, {
      apiKey: key,
    });
    expect(gone.status).toBe(404);
  });

  it('signs out: the session ends and the API refuses the old cookie', async () => {
    const cookie = (await page.context().cookies())[0]!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await visible(page.getByLabel('Console key'));
    expect(await page.context().cookies()).toEqual([]);
    const replayed = await suite.api.request('GET', '/v1/audit', {
      headers: { Cookie: `${cookie.name}=${cookie.value}` },
    });
    expect(replayed.status).toBe(401);
  });
});
