/**
 * What every Chromium test of the local UI shares: Debian's Chromium driven by playwright-core (never a downloaded
 * browser), the built web app, a page that records every uncaught page error and console error (a test asserts the
 * list is empty), screenshots, and the login form. Not a test file itself.
 *
 * Screenshots go to AGENTKIT_SCREENSHOT_DIR, else to `screenshots/` in the test file's temporary directory
 * (AGENTKIT_TEST_TMPDIR: scripts/test.mjs gives each file its own and removes it afterwards); with AGENTKIT_UPDATE_SCREENSHOTS=1 also to docs/images/ui-*.png.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The built web app the UI servers under test serve. */
export const webDir = path.join(root, 'dist/ui-web');
const CHROMIUM = process.env.AGENTKIT_CHROMIUM ?? '/usr/bin/chromium';
const shots = process.env.AGENTKIT_SCREENSHOT_DIR || path.join(process.env.AGENTKIT_TEST_TMPDIR ?? tmpdir(), 'screenshots');
const updateDocs = process.env.AGENTKIT_UPDATE_SCREENSHOTS === '1';

/** The username and password the tests' auth files hold. */
export const ADMIN = { username: 'admin', password: 'correct horse' } as const;

/** Fail at once, saying what to do, when Chromium or the built web app is missing. */
export function assertBrowserReady(): void {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install it with apt-get install -y chromium (.ci/run does)`);
  if (!existsSync(path.join(webDir, 'index.html'))) throw new Error(`the web app is not built at ${webDir}: run npm run build`);
}

/** Headless Chromium with the flags every test here uses (no network of its own, no first-run work). */
export async function launchChromium(): Promise<Browser> {
  await mkdir(shots, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

/**
 * A fresh context (own cookies) whose page records every uncaught error and console error in `errors`, except console
 * errors matching `allow` (e.g. the 401 a signed-out page expects).
 */
export async function newPage(
  browser: Browser,
  options: { width?: number; height?: number; allow?: RegExp } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    colorScheme: 'light',
    reducedMotion: 'reduce',
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !options.allow?.test(message.text())) errors.push(`console error: ${message.text()}`);
  });
  return { context, page, errors };
}

/** Save `ui-<name>.png` (and refresh the docs copy when asked to). */
export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  await page.screenshot({ path: path.join(shots, `ui-${name}.png`), fullPage });
  if (updateDocs) await page.screenshot({ path: path.join(root, 'docs/images', `ui-${name}.png`), fullPage });
}

/** Sign in through the login form as ADMIN and wait for the overview. */
export async function login(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}
