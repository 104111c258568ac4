import { chromium } from 'playwright-core';
const [url, out, ...paths] = process.argv.slice(2);
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless','--no-sandbox','--disable-gpu','--disable-quic','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync'] });
for (const scheme of ['light','dark']) for (const width of [1280, 375]) {
  const ctx = await b.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
  const p = await ctx.newPage();
  p.on('console', m => console.log('console', m.type(), m.text()));
  p.on('pageerror', e => console.log('pageerror', e.message));
  await p.goto(url);
  for (const path of paths) {
    await p.goto(new URL(path, url).href);
    await p.waitForTimeout(2500);
    const name = `${out}/${path.replace(/[^a-z0-9]+/gi,'_').slice(0,40)}-${width}-${scheme}.png`;
    await p.screenshot({ path: name, fullPage: false });
  }
  await ctx.close();
}
await b.close();
