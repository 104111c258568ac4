// A long conversation in chromium: it opens on its first page, loads later
// pages as the reader scrolls, never keeps more than 400 records in the
// page however far the reader goes, and reads back towards the start when
// opened at a record near the end (a search hit's link).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from './helpers/browser.ts';
import { startDashboardProcess, type RunningDashboard } from './helpers/dashboard.ts';
import { tempDir } from './helpers/home.ts';
import { LONG_CONVERSATION, longConversationHome } from './helpers/long-conversation.ts';
import { homeEnv } from './helpers/search-homes.ts';

declare const window: { scrollTo(x: number, y: number): void; scrollY: number };
declare const document: { documentElement: { scrollHeight: number } };

const RECORDS = 1200;
const MAX_IN_PAGE = 400;

describe('a long conversation in chromium', () => {
  let dash: RunningDashboard;
  let browser: BrowserContext;
  let page: Page;

  before(async () => {
    const home = longConversationHome(RECORDS, tempDir('abh-long-'));
    dash = await startDashboardProcess(['dashboard', '--port', '0'], homeEnv(home, `${home}/.agent-bridge`));
    browser = await launchBrowser();
    page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(dash.loginUrl);
  });
  after(async () => {
    await browser?.close();
    await dash?.stop();
  });

  const recordsInPage = () => page.locator('.entry').evaluateAll((els) => new Set(els.map((e) => (e as unknown as { dataset: { record: string } }).dataset.record)).size);

  test('scrolling to the end loads page after page and keeps at most 400 records in the page', async () => {
    await page.goto(`${dash.base}c/${encodeURIComponent(LONG_CONVERSATION)}`);
    await page.locator('.entry', { hasText: 'question 0:' }).waitFor();
    assert.equal(await recordsInPage(), 50, 'one page at first');
    let most = 0;
    for (let i = 0; i < 200; i++) {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.waitForTimeout(60);
      most = Math.max(most, await recordsInPage());
      if ((await page.locator('.entry', { hasText: `answer ${RECORDS - 2}:` }).count()) > 0) break;
    }
    await page.locator('.entry', { hasText: `answer ${RECORDS - 2}:` }).waitFor({ timeout: 5000 });
    assert.ok(most <= MAX_IN_PAGE, `${most} records were in the page at once`);
    assert.equal(await page.locator('.entry', { hasText: 'question 0:' }).count(), 0, 'the first pages were let go');
    for (let i = 0; i < 100 && (await page.locator('.entry', { hasText: 'question 0:' }).count()) === 0; i++) {
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForTimeout(60);
      assert.ok((await recordsInPage()) <= MAX_IN_PAGE);
    }
    await page.locator('.entry', { hasText: 'question 0:' }).waitFor({ timeout: 5000 });
  });

  test('opened at a record near the end, it shows that record and reads back on request', async () => {
    const page1 = await (await fetch(`${dash.base}api/conversations/${encodeURIComponent(LONG_CONVERSATION)}?before=${RECORDS - 10}&limit=1`, { headers: { Authorization: `Bearer ${dash.token}` } })).json() as { records: Array<{ id: number }> };
    const at = page1.records[0]?.id as number;
    await page.goto(`${dash.base}c/${encodeURIComponent(LONG_CONVERSATION)}?at=${at}`);
    const target = page.locator('.entry.target');
    await target.waitFor();
    assert.equal(await target.getAttribute('data-record'), String(at));
    const before = await recordsInPage();
    await page.locator('button', { hasText: 'Load earlier records' }).click();
    await page.waitForFunction((n) => new Set([...(globalThis as unknown as { document: { querySelectorAll(s: string): Array<{ dataset: { record: string } }> } }).document.querySelectorAll('.entry')].map((e) => e.dataset.record)).size > n, before);
    assert.ok((await recordsInPage()) > before);
  });
});
