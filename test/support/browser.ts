import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { expect } from 'vitest';
import type { TestApp } from './harness.js';

/**
 * What the browser tests share: Chromium from Debian's packages (CHROMIUM_PATH elsewhere; without
 * it these tests fail, never skip), where their screenshots go, and the app served on a port.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/**
 * The directory a test's screenshots go to, made if missing: `docsDir` with PORTAL_SCREENSHOTS=1
 * (the pictures of the documentation), else `cacheDir`, so an ordinary test run leaves docs/ as it is.
 */
export function screenshotDir(docsDir: string, cacheDir: string): string {
  const dir = resolve(process.env.PORTAL_SCREENSHOTS ? docsDir : cacheDir);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Serves the app on 127.0.0.1 (a free port unless given); answers its base URL. */
export async function serve(t: TestApp, port = 0): Promise<string> {
  await t.app.listen({ port, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

/** The page fits its width: nothing sticks out sideways. */
export async function fitsWidth(page: Page): Promise<void> {
  const [scroll, inner] = await page.evaluate<[number, number]>(
    '[document.documentElement.scrollWidth, window.innerWidth]',
  );
  expect(scroll).toBeLessThanOrEqual(inner);
}
