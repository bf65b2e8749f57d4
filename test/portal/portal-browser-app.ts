import { afterAll, beforeAll, expect } from 'vitest';
import { openChromium, serve, type TestBrowser } from '../support/browser.js';
import {
  type DatabaseKind,
  type TestApp,
  type Terminal,
  setupTerminal,
  startApp,
} from '../support/harness.js';

/** What a portal browser test works with once its tests run. */
export interface PortalBrowserApp {
  t: TestApp;
  browser: TestBrowser;
  baseUrl: string;
  till: Terminal;
}

/**
 * The app of a portal browser test file, served on a port, a Chromium, a till and an owner of the
 * till's merchant; started before the file's tests and closed after them. Read it once tests run.
 */
export function portalBrowserApp(
  kind: DatabaseKind,
  owner: { email: string; password: string },
): PortalBrowserApp {
  const running = {} as PortalBrowserApp;
  beforeAll(async () => {
    running.t = await startApp(kind);
    running.baseUrl = await serve(running.t);
    running.browser = await openChromium();
    running.till = await setupTerminal(running.t);
    const users = `/merchants/${encodeURIComponent(running.till.serviceUserName)}/portalUsers`;
    expect((await running.t.admin('POST', users, owner)).statusCode).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await running.browser?.close();
    await running.t?.close();
  });
  return running;
}
