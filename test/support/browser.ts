import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Locator,
  type Page,
  chromium,
} from 'playwright-core';
import { expect } from 'vitest';
import type { TestApp } from './harness.js';

/**
 * What the browser tests share: Chromium's headless shell from Debian's packages (package
 * chromium-headless-shell; CHROMIUM_PATH names another Chromium, `/usr/bin/chromium` for the full
 * browser; without it these tests fail, never skip), where their screenshots go, and the app served
 * on a port. The headless shell is the same engine without the browser's windows, the build
 * Playwright itself runs headless tests in; it took about half the CPU of the full browser for the
 * same walks (docs/decisions.md, "Tests").
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

/**
 * A test file's part of the worker's browser: the contexts and pages it opened. `close()` closes
 * those and leaves the browser running for the next file of the worker process.
 */
export interface TestBrowser {
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** A page in a new context of its own, as `Browser.newPage` opens one. */
  newPage(options?: BrowserContextOptions): Promise<Page>;
  close(): Promise<void>;
}

/** The worker process's Chromium, launched when a file first asks for it; null once it is gone. */
let processBrowser: Promise<Browser> | null = null;

function runningChromium(): Promise<Browser> {
  if (processBrowser === null) {
    const launched = chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    processBrowser = launched;
    const forget = () => {
      if (processBrowser === launched) processBrowser = null;
    };
    // A browser that crashed or failed to start is launched again by the next file that asks.
    launched.then((browser) => browser.once('disconnected', forget), forget);
  }
  return processBrowser;
}

/**
 * Chromium for a test file. One browser is launched per worker process and kept between files
 * (they share the process, vitest.config.ts): a launch cost some 1.8 s of CPU, and each file
 * launched one per database. Every context a file opens is its own (cookies, storage, cache), as
 * in a browser of its own, and is closed by the handle's `close()`. Playwright ends the browser
 * with the process.
 */
export async function openChromium(): Promise<TestBrowser> {
  const browser = await runningChromium();
  const contexts = new Set<BrowserContext>();
  const open = async (options?: BrowserContextOptions): Promise<BrowserContext> => {
    const context = await browser.newContext(options);
    contexts.add(context);
    context.once('close', () => contexts.delete(context));
    return context;
  };
  return {
    newContext: open,
    newPage: async (options) => (await open(options)).newPage(),
    close: async () => {
      await Promise.all([...contexts].map((context) => context.close()));
    },
  };
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

/** A list is seen whole in its box: none of its columns is hidden behind a sideways scroll. */
export async function listFits(page: Page, selector: string): Promise<void> {
  const box = page.locator(selector).locator('xpath=..');
  expect(await box.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
}

/** The name a phone's list shows above a value (its column's name), or '' when it shows none. */
export async function phoneLabelOf(cell: Locator): Promise<string> {
  type Styles = { getComputedStyle(e: unknown, pseudo: string): { content: string } };
  const content = await cell.evaluate(
    (e) => (globalThis as unknown as Styles).getComputedStyle(e, '::before').content,
  );
  return content === 'none' || content === 'normal' ? '' : content.replace(/^"|"$/g, '');
}
