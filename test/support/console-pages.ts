import type { Browser, Page } from 'playwright-core';

// The review console's browser tests open it as a user does: a fresh context, the key typed into the
// sign-in form, and the console open on its first view.

/**
 * A page of the console at `consoleUrl`, signed in with `apiKey`. Functions that playwright runs in
 * the page can call `browserWindow()` for its window (this project's types have no DOM).
 */
export async function signedInConsolePage(browser: Browser, consoleUrl: string, apiKey: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  await context.addInitScript('globalThis.browserWindow = () => globalThis;');
  const page = await context.newPage();
  await page.goto(consoleUrl);
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Open the console' }).click();
  await page.getByRole('heading', { name: 'Extractions' }).waitFor();
  return page;
}

/** Errors the page logged from now on, Content-Security-Policy refusals included. */
export function browserProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}
