import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

// The review console's browser tests, screenshots (npm run console:screenshots) and bench drive
// Debian's chromium through playwright-core; nothing is downloaded at run time. `.ci/run` installs the
// browser where it can; where none exists the tests skip and say why (consoleBrowserMissing).

const candidateNames = ['chromium', 'chromium-browser', 'google-chrome'];

/** The browser to drive: PAPERFLOW_CHROMIUM when set, else the first chromium on PATH. */
export function consoleBrowserPath(): string | undefined {
  if (process.env.PAPERFLOW_CHROMIUM) return process.env.PAPERFLOW_CHROMIUM;
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of candidateNames) {
      try {
        accessSync(join(folder, name), constants.X_OK);
        return join(folder, name);
      } catch {
        // not in this folder
      }
    }
  }
  return undefined;
}

export const consoleBrowserMissing =
  'No chromium to drive: the review console browser tests are skipped. Install Debian\'s chromium (.ci/run does when it runs as root) or set PAPERFLOW_CHROMIUM.';

export async function launchConsoleBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: consoleBrowserPath(),
    headless: true,
    // Root in a container has no user namespace for chromium's sandbox.
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}
