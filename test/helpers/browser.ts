// Debian's chromium driven by playwright-core (which never downloads a
// browser): a fresh profile per launch, the flags CI machines need.

import { existsSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';
import { tempDir } from './home.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchBrowser(options: { width?: number; colorScheme?: 'light' | 'dark' } = {}): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install it (apt-get install -y chromium); .ci/run does this`);
  return chromium.launchPersistentContext(tempDir('abh-chromium-'), {
    executablePath: CHROMIUM,
    args: FLAGS,
    viewport: { width: options.width ?? 1280, height: 900 },
    colorScheme: options.colorScheme ?? 'light',
  });
}

/** Where screenshots go: DASHBOARD_SCREENSHOTS, else a temp dir (printed, so a person can look). */
export function screenshotDir(): string {
  const dir = process.env.DASHBOARD_SCREENSHOTS ?? tempDir('abh-shots-');
  return dir;
}
