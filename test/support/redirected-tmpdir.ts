import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Points os.tmpdir() (it reads TMPDIR on every call) at a fresh folder of the test's own, so what the
 * code under test leaves there can be listed; `restore` puts TMPDIR back and removes the folder.
 */
export function redirectTmpdir(prefix: string): { folder: string; restore(): void } {
  const previous = process.env.TMPDIR;
  const folder = mkdtempSync(join(tmpdir(), prefix));
  process.env.TMPDIR = folder;
  return {
    folder,
    restore() {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
