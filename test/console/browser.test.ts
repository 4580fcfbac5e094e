import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import sparticuzChromium from '@sparticuz/chromium';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTestApi } from '../support/api.ts';
import { countersOf, emailOf, placeOrder } from '../support/commerce.ts';
import { consoleKey, orderAndReturn, reviewEveryReturn, saveWorkflow } from '../support/console.ts';
import { uid } from '../support/fixtures.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

const { CSV_COLUMNS } = await import('../../shared/console/dispositions-upload.ts');
const { getRecord } = await import('../../shared/store/record-once.ts');
const { keys } = await import('../../shared/store/keys.ts');
const { runWebhookWorker } = await import('../../shared/use-cases/deliver-webhooks.ts');
const { runUploadWorker } = await import('../../shared/use-cases/record-upload.ts');

/**
 * The console in a real browser (headless Chromium from npm: @sparticuz/chromium driven by
 * playwright-core) against the local server and DynamoDB Local. One person's session, page after
 * page; a screenshot of each page goes to .screenshots/ (git-ignored) to be looked at.
 */
const SCREENSHOTS = join(import.meta.dirname, '..', '..', '.screenshots');
const VIEWPORT = { width: 1280, height: 800 };

describe('merchant console in Chromium', () => {
  const suite = withTestApi();
  let browser: Browser;
  let page: Page;
  let key: string;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: await sparticuzChromium.executablePath(),
      args: sparticuzChromium.args,
      headless: true,
    });
    // The machine's POSIX locale would give navigator.language 'en-US@posix', which Intl refuses.
    page = await browser.newPage({ viewport: VIEWPORT, locale: 'en-GB', timezoneId: 'UTC' });
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => console.error('page error:', error.message));
    page.on('console', (message) => message.type() === 'error' && console.error('console:', message.text()));
    key = await consoleKey(suite.merchantId, 'ana@acme.example');
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  /** A screenshot, after checking the page fits 1280 px wide (no horizontal scroll). */
  async function shoot(name: string) {
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(width, `${name} fits the viewport`).toBeLessThanOrEqual(VIEWPORT.width);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }
  const visible = (locator: Locator) => locator.waitFor({ state: 'visible' });
  const hasText = (locator: Locator, text: string | RegExp) =>
    expect
      .poll(async () => (await locator.first().textContent()) ?? '', { timeout: 15_000 })
      .toMatch(typeof text === 'string' ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : text);
  const nav = (name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name });

  it('signs in with the keyboard at http://127.0.0.1 (the Secure cookie is kept there)', async () => {
    await page.goto(`${suite.api.baseUrl}/`);
    await visible(page.getByRole('heading', { name: 'Abuse-decision console' }));
    await visible(page.getByLabel('Console key'));
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
    await nav('Review queue').click();
    await visible(page.getByText('No reviews waiting'));
    await shoot('reviews-empty');

    expect((await saveWorkflow(suite.api, key, 'return', reviewEveryReturn)).status).toBe(200);
    const email = `${uid('shopper')}@example.com`;
    const first = await orderAndReturn(suite.api, suite.apiKey, { email });
    await page.reload();
    const providerId = first.returnBody.providerReturnId;
    await page.getByRole('link', { name: providerId }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('review')).toMatch(/^rev_/);
    await hasText(page.getByRole('region', { name: 'Explanation' }), 'review_all_returns');
    await visible(page.getByRole('table', { name: 'Signals' }));
    await shoot('review-detail');
    const firstScore = Number(
      (await page.getByRole('region', { name: 'Explanation' }).locator('h3').first().textContent())?.match(
        /abuse score (\d+)/,
      )?.[1],
    );

    await page.getByLabel('Abuse').check();
    await page.getByLabel('Note').fill('Empty box came back');
    await page.getByRole('button', { name: 'Resolve' }).click();
    await visible(page.getByText('Resolved as abuse by ana@acme.example'));

    // The customer's next return is scored with the label counted.
    const second = await orderAndReturn(suite.api, suite.apiKey, { email });
    await nav('Decision search').click();
    await page.getByLabel('Event type').selectOption('return');
    await page.getByLabel('providerReturnId').fill(second.returnBody.providerReturnId);
    await page.getByRole('button', { name: 'Search' }).click();
    const heading = page.getByRole('region', { name: 'Explanation' }).locator('h3').first();
    await hasText(heading, 'abuse score');
    const secondScore = Number((await heading.textContent())?.match(/abuse score (\d+)/)?.[1]);
    expect(secondScore).toBeGreaterThan(firstScore);
    // Counters in words, in the right number ("1 abusive return", not "1 abusive returns").
    await visible(page.getByText(/email: .*\b1 abusive return\b(?!s)/));
    await shoot('decision-search');
  });

  it('refuses a CSV with a bad row (nothing recorded, the row shown), then records a good one', async () => {
    const { order, returnBody } = await orderAndReturn(suite.api, suite.apiKey);
    const sku = order.lineItems[0]!.identifiers[0]!.identifier;
    const row = (condition: string) =>
      `${returnBody.providerReturnId},SKU,${sku},${condition},REMOVE_SUSPECT_ABUSE,DROPOFF,CASH,WH-1,,,`;
    await nav('Dispositions upload').click();
    expect(await page.getByRole('link', { name: 'Download the template' }).getAttribute('download')).toBe(
      'dispositions-template.csv',
    );
    const upload = async (name: string, lines: string[]) => {
      await page.getByLabel('CSV file').setInputFiles({
        name,
        mimeType: 'text/csv',
        buffer: Buffer.from([CSV_COLUMNS.join(','), ...lines].join('\n')),
      });
      await page.getByRole('button', { name: 'Upload' }).click();
    };
    await upload('bad.csv', [row('EMPTY_BOX'), row('SHREDDED')]);
    const errors = page.getByRole('table', { name: 'Rows to fix (nothing was recorded)' });
    await hasText(errors, 'returnedItemCondition');
    await expect.poll(() => errors.locator('tbody tr').count()).toBe(1);
    await hasText(errors.locator('tbody tr'), /^3returnedItemConditionunknown_enum_value/);
    await hasText(page.getByRole('alert'), 'request id');
    await shoot('dispositions-errors');
    expect(
      await getRecord(keys.returnDispositions(suite.merchantId, returnBody.providerReturnId)),
    ).toBeUndefined();

    // A valid file is accepted at once; its job records it (here the worker runs when the test says).
    await upload('good.csv', [row('EMPTY_BOX')]);
    await hasText(page.locator('.notice'), 'Recording 1 row for 1 return: 0 of 1 done');
    await expect.poll(() => new URL(page.url()).searchParams.get('upload')).toMatch(/^upl_/);
    await visible(page.getByRole('progressbar', { name: 'Recording progress' }));
    expect((await countersOf(suite.merchantId, emailOf(order))).c_abr).toBeUndefined();
    await shoot('dispositions-recording');
    await runUploadWorker({ merchantId: suite.merchantId });
    await hasText(page.getByRole('status'), 'Recorded 1 row for 1 return: 1 newly recorded, 0 already');
    expect((await countersOf(suite.merchantId, emailOf(order))).c_abr).toBe(1);
    await shoot('dispositions-recorded');
    // The job is in the URL: a reload shows the same result.
    await page.reload();
    await hasText(page.getByRole('status'), 'Recorded 1 row for 1 return');
  });

  it('keeps a rule with a typo from being saved, then backtests, saves, and a live order follows it', async () => {
    await page.goto(`${suite.api.baseUrl}/workflows?type=order`);
    const condition = page.getByLabel('Condition').first();
    await condition.fill('abuseScroe >= 0');
    await hasText(page.locator('.field-errors'), 'abuseScroe');
    await expect.poll(() => page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await expect.poll(() => page.getByRole('button', { name: 'Backtest' }).isDisabled()).toBe(true);
    await shoot('workflow-typo');
    expect((await suite.api.request('GET', '/v1/workflows/order', { apiKey: key })).body.source).toBe(
      'default',
    );

    await condition.fill('abuseScore >= 0');
    await visible(page.getByText('No problems found.'));
    await page.getByRole('button', { name: 'Backtest' }).click();
    await hasText(page.getByRole('region', { name: 'Backtest' }), 'would change outcome');
    await page.getByRole('button', { name: 'Save' }).click();
    await visible(page.getByText(/Saved as version wf_/));
    await hasText(page.getByRole('region', { name: 'Versions' }), 'by ana@acme.example');
    await shoot('workflow-saved');

    const live = await suite.api.post('/v1/order', (await import('../support/fixtures.ts')).orderBody(), {
      apiKey: suite.apiKey,
    });
    expect(live.body.cartLevelDecisions[0].decisions[0]).toMatchObject({
      decision: 'DECLINE',
      subDecision: 'high_abuse_score',
    });
    // Put the default back for the rest of the suite's orders.
    await saveWorkflow(suite.api, key, 'order', {
      rules: [{ name: 'high_abuse_score', decision: 'DECLINE', condition: 'abuseScore >= 85' }],
      defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
    });
  });

  it('shows the overview charts and the audit log of the changes', async () => {
    await placeOrder(suite.api, suite.apiKey);
    await nav('Overview').click();
    await visible(page.getByText('Decisions per day'));
    await visible(page.locator('.chart canvas'));
    await shoot('overview');
    await nav('Audit log').click();
    const log = page.getByRole('table');
    await hasText(log, 'Review resolved');
    await hasText(log, 'Workflow saved');
    await hasText(log, 'Dispositions uploaded');
    await hasText(log, 'ana@acme.example');
    await shoot('audit');
  });

  it('adds a webhook endpoint (secret shown once), sends a test event the worker delivers, lists it', async () => {
    const receiver = await startWebhookReceiver();
    try {
      await nav('Webhooks').click();
      await visible(page.getByText('No webhook endpoints yet'));
      await page.getByLabel('URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await hasText(page.getByRole('status'), /shown only now: whsec_/);
      await page.getByRole('link', { name: receiver.url }).click();
      await page.getByRole('button', { name: 'Send test event' }).click();
      await visible(page.getByText('Test event queued'));
      await runWebhookWorker({ merchantId: suite.merchantId, policy: 'permissive' });
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

  it('lists the feedback rules’ entries, adds a card to the block list, removes it, and switches a rule', async () => {
    await nav('Lists').click();
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
      (await import('../support/fixtures.ts')).orderBody({
        card: { BIN: '411111', last4: '4242', expiry: '09/27' },
        timestamp: Date.now(),
      }),
      { apiKey: suite.apiKey },
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
