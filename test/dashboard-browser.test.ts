// The dashboard in a real browser (Debian's chromium, playwright-core),
// hosted by `agent-bridge serve` on a generated home: sign in through the
// token URL, search a fixture keyword, open the conversation at the hit,
// compare the raw view's bytes with the file, go from a parent to its
// subagent and back, a transcript full of HTML/JS payloads rendered as text
// (no dialog, no script), the keyboard, 375 px, a new record arriving live,
// and the status page's progress while a capture runs.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { launchBrowser, screenshotDir } from './helpers/browser.ts';
import { startDashboardProcess, type RunningDashboard } from './helpers/dashboard.ts';
import { cli, envFor, fixtureHome } from './helpers/home.ts';

// Evaluated in the page (the project's TypeScript has no DOM library).
/** What the status test measures of an element: its text, and the boxes its text is laid out in. */
interface TextNodeLike {
  textContent: string | null;
}
declare const document: {
  cookie: string;
  activeElement: { id: string } | null;
  querySelector(s: string): { textContent: string | null; hasAttribute(n: string): boolean } | null;
  querySelectorAll(s: string): Iterable<TextNodeLike>;
  createRange(): { selectNodeContents(node: TextNodeLike): void; getClientRects(): Iterable<{ top: number }> };
  getElementById(id: string): { dataset: Record<string, string> } | null;
  documentElement: { scrollWidth: number };
};
declare const window: { innerWidth: number; __xss?: number };

const PROJECT_DIR = '.claude/projects/-home-fixture-work-orchard-app-v2';
const PARENT = 'b76264cd-73f7-42d6-8960-4cea770c7b0f';
const CHILD = 'ac18a8f15de7bb1e9';
const XSS_SESSION = '7d1f3a52-0b6e-4c1f-9a55-5e3f2b8c9d10';

/** Payloads a transcript may hold; each must appear on the page as these exact characters. */
const PAYLOADS = [
  '<script>window.__xss = 1; alert("script")</script>',
  '<img src=x onerror="window.__xss = 2; alert(\'img\')">',
  '<a href="javascript:alert(3)">click me</a>',
  '"><svg onload=alert(4)>',
  '</textarea></pre><iframe src="javascript:alert(5)"></iframe>',
];

function line(type: 'user' | 'assistant', text: string, at: string): string {
  const message = type === 'user' ? { role: 'user', content: text } : { role: 'assistant', content: [{ type: 'text', text }] };
  return `${JSON.stringify({ type, sessionId: XSS_SESSION, cwd: '/home/fixture/work/orchard_app.v2', timestamp: at, uuid: createHash('sha1').update(text + at).digest('hex'), message })}\n`;
}

describe('dashboard in chromium', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let dash: RunningDashboard;
  let browser: BrowserContext;
  let page: Page;
  const dialogs: string[] = [];
  const shots = screenshotDir();
  const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: false });

  before(async () => {
    ({ home } = fixtureHome());
    env = envFor(home);
    const xss = PAYLOADS.map((p, i) => line(i % 2 === 0 ? 'user' : 'assistant', `xsswombat ${p}`, `2026-03-14T11:0${i}:00.000Z`)).join('');
    writeFileSync(join(home, PROJECT_DIR, `${XSS_SESSION}.jsonl`), xss);
    const ingested = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(ingested.code, 0, ingested.stderr);
    mkdirSync(join(home, '.agent-bridge'), { recursive: true });
    writeFileSync(join(home, '.agent-bridge', 'config.json'), JSON.stringify({ history: { dashboard: { port: 0 } } }));
    dash = await startDashboardProcess(['serve'], env);
    browser = await launchBrowser();
    page = browser.pages()[0] ?? (await browser.newPage());
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    process.stderr.write(`# dashboard screenshots: ${shots}\n`);
  });
  after(async () => {
    await browser?.close();
    await dash?.stop();
  });

  test('signs in through the token URL; the URL then carries no token and the cookie is HttpOnly', async () => {
    await page.goto(dash.loginUrl);
    assert.equal(page.url(), dash.base);
    assert.doesNotMatch(page.url(), /token/);
    const cookies = await browser.cookies(dash.base);
    assert.equal(cookies.length, 1);
    assert.equal(cookies[0]?.httpOnly, true);
    assert.equal(cookies[0]?.sameSite, 'Strict');
    assert.equal(await page.evaluate(() => document.cookie), '', 'scripts cannot read the session');
    await page.locator('#q').waitFor();
  });

  test('search: `/` focuses the box, a fixture keyword is found and highlighted; j and Enter open the hit at its record', async () => {
    await page.locator('main').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'q');
    await page.keyboard.type('glimmerquartz');
    await page.keyboard.press('Enter');
    await page.locator('.hit').first().waitFor();
    assert.equal(await page.locator('.hit mark').first().textContent(), 'glimmerquartz');
    assert.doesNotMatch(page.url(), /token/);
    await shot('search');
    await page.locator('#q').blur();
    await page.keyboard.press('j');
    assert.equal(await page.locator('.hit.selected').count(), 1);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/c\/claude%3A/);
    const target = page.locator('.entry.target');
    await target.waitFor();
    assert.match((await target.textContent()) ?? '', /glimmerquartz/);
    await shot('conversation-at-hit');
  });

  test('the raw view shows the exact bytes of the record, as in the file', async () => {
    await page.locator('.entry.target .raw-button').click();
    const dialog = page.locator('dialog.raw');
    await dialog.waitFor();
    await page.waitForFunction(() => document.querySelector('dialog.raw code.sha')?.textContent !== '…');
    const range = (await dialog.locator('[data-range]').getAttribute('data-range')) as string;
    const [from, to] = range.split('-').map(Number) as [number, number];
    const source = (await dialog.locator('dd code').first().textContent()) as string;
    assert.equal(source, join(home, PROJECT_DIR, `${PARENT}.jsonl`));
    const bytes = readFileSync(source).subarray(from, to);
    assert.equal(await dialog.locator('code.sha').textContent(), createHash('sha256').update(bytes).digest('hex'));
    assert.equal(await dialog.locator('pre.raw-bytes').textContent(), new TextDecoder().decode(bytes));
    assert.match((await dialog.locator('pre mark').textContent()) ?? '', /glimmerquartz/, 'the hit\'s line is marked');
    await shot('raw-view');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  test('from a parent to its subagent through the native tree, and back through the parent link', async () => {
    await page.goto(`${dash.base}c/${encodeURIComponent(`claude:${PARENT}`)}`);
    const child = page.locator('.family a', { hasText: CHILD.slice(-12) }).first();
    await child.click();
    await page.waitForURL(new RegExp(encodeURIComponent(`:native:${CHILD}`)));
    // The keyword is in a tool result, folded: open it.
    await page.locator('.entry details .fold-hint', { hasText: 'rustfmt.toml' }).first().click();
    await page.locator('.entry', { hasText: 'subagentmarigold' }).first().waitFor();
    assert.match((await page.locator('.family').textContent()) ?? '', /Parent:/);
    await shot('subagent');
    await page.locator('a[rel="up"]').click();
    await page.waitForURL(new RegExp(`${encodeURIComponent(`claude:${PARENT}`)}$`));
    await page.locator('.entry:not(.bookkeeping)').first().waitFor();
    assert.equal(await page.locator('.entry.bookkeeping:visible').count(), 0, 'bookkeeping records hidden by default');
    await page.getByLabel('Show bookkeeping records').check();
    assert.ok((await page.locator('.entry.bookkeeping:visible').count()) > 0, 'and shown on request');
    await page.getByLabel('Show bookkeeping records').uncheck();
    await page.keyboard.press('Escape');
    await page.waitForURL(new RegExp(encodeURIComponent(`:native:${CHILD}`)), { timeout: 5000 });
    // The subagent's report in the parent links to the subagent.
    await page.goto(`${dash.base}c/${encodeURIComponent(`claude:${PARENT}`)}`);
    await page.locator('.entry .child-link').first().click();
    await page.waitForURL(new RegExp(encodeURIComponent(`claude:${PARENT}:native:`)));
  });

  test('HTML and JavaScript in a transcript render as text: no dialog, no script, no element', async () => {
    await page.goto(`${dash.base}search?q=xsswombat`);
    await page.locator('.hit').first().waitFor();
    await page.goto(`${dash.base}c/${encodeURIComponent(`claude:${XSS_SESSION}`)}`);
    await page.locator('.entry').nth(PAYLOADS.length - 1).waitFor();
    const text = (await page.locator('main').textContent()) ?? '';
    for (const payload of PAYLOADS) assert.ok(text.includes(payload), `shown literally: ${payload}`);
    for (const raw of await page.locator('.raw-button').all()) {
      await raw.click();
      await page.locator('dialog.raw').waitFor();
      await page.keyboard.press('Escape');
    }
    await page.goto(`${dash.base}search?q=xsswombat`);
    await page.locator('.hit').first().waitFor();
    assert.deepEqual(dialogs, [], 'no dialog opened');
    assert.equal(await page.evaluate(() => window.__xss), undefined, 'no payload ran');
    assert.equal(await page.locator('main img, main iframe, main svg:not(.chart), main script').count(), 0, 'no element came from a payload');
    await shot('payloads-as-text');
  });

  test('at 375 px the pages fit the width, with landmarks and labels', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const path of [`c/${encodeURIComponent(`claude:${PARENT}`)}`, 'search?q=quokkaflux', 'status', 'sources', 'conversations']) {
      await page.goto(`${dash.base}${path}`);
      await page.locator('main > *:not(p.muted)').first().waitFor();
      await page.waitForTimeout(300);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${path} is ${overflow}px wider than the screen`);
      await shot(`narrow-${path.split(/[?/]/)[0]}`);
    }
    assert.equal(await page.locator('header[role="banner"]').count(), 1);
    assert.equal(await page.locator('nav[aria-label="Main"]').count(), 1);
    assert.equal(await page.locator('main#main').count(), 1);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('on the status page a percentage stays on one line beside its label, at 1280 px and at 375 px', async () => {
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${dash.base}status`);
      // The fixture's migration is verified: its card shows "100.0 %", the widest percentage there is.
      await page.waitForFunction(() => [...document.querySelectorAll('.progress-label strong')].some((el) => el.textContent === '100.0 %'), undefined, { timeout: 30_000 });
      const lines = await page.evaluate(() =>
        [...document.querySelectorAll('.progress-label strong')].map((el) => {
          // One box per line the text is laid out on.
          const range = document.createRange();
          range.selectNodeContents(el);
          return { text: el.textContent, lines: new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size };
        }),
      );
      for (const { text, lines: count } of lines) assert.equal(count, 1, `"${text}" takes ${count} lines at ${width} px`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('a new record appears live in the open conversation', async () => {
    await page.goto(`${dash.base}c/${encodeURIComponent(`claude:${XSS_SESSION}`)}`);
    await page.locator('.entry').nth(PAYLOADS.length - 1).waitFor();
    await page.waitForFunction(() => document.getElementById('live')?.dataset.state === 'open');
    appendFileSync(join(home, PROJECT_DIR, `${XSS_SESSION}.jsonl`), line('user', 'liveotterkeyword arrives while you read', '2026-03-14T11:30:00.000Z'));
    await page.locator('.entry.fresh', { hasText: 'liveotterkeyword' }).waitFor({ timeout: 60_000 });
    await shot('live-record');
  });

  test('the status page shows the capture\'s progress while a backlog is captured', async () => {
    const big = join(home, PROJECT_DIR, '0c9a1e77-3a5f-4b8e-9d2c-6f1e2a3b4c5d.jsonl');
    const filler = 'orchard '.repeat(500);
    const lines: string[] = [];
    for (let i = 0; i < 6000; i++) lines.push(line(i % 2 === 0 ? 'user' : 'assistant', `backlogbadger ${i} ${filler}`, '2026-03-15T08:00:00.000Z'));
    writeFileSync(big, lines.join(''));
    await page.goto(`${dash.base}status`);
    const bar = page.locator('progress[aria-label^="Backlog captured"]');
    await bar.waitFor();
    await page.waitForFunction(
      () => {
        const el = document.querySelector('progress[aria-label^="Backlog captured"]');
        // The page follows the published status: a backlog can be found (waiting) a status before capture begins (ingesting).
        const text = document.querySelector('main')?.textContent ?? '';
        return el !== null && el.hasAttribute('value') && text.includes('waiting') && text.includes('ingesting');
      },
      undefined,
      { timeout: 90_000, polling: 250 },
    );
    const label = (await bar.getAttribute('aria-label')) as string;
    assert.match(label, /Backlog captured: \d+(\.\d)? percent/);
    assert.match((await page.locator('main').textContent()) ?? '', /ingesting/);
    assert.equal(await page.locator('svg.chart').count(), 1, 'the activity chart is drawn');
    await shot('status-during-capture');
  });
});
