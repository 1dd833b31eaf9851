import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalStackStartError } from './local-stack-errors.ts';

// One local stack per data folder: LevelDB (dynalite) and SQLite (fauxqs) each lock their files, and a
// second stack failing inside an emulator thread surfaced as a bare "unsettled top-level await". The
// lock file names its owner's pid, so the refusal can say which process holds the folder, and a
// folder left locked by a process that no longer runs (killed -9) is taken over.

const lockFileName = 'local-stack.lock';

export interface DataDirectoryLock {
  release(): Promise<void>;
}

export async function lockDataDirectory(dataDir: string): Promise<DataDirectoryLock> {
  const path = join(dataDir, lockFileName);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const file = await open(path, 'wx');
      await file.writeFile(String(process.pid));
      await file.close();
      return { release: () => rm(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(owner) && owner > 0 && isRunning(owner)) {
      const who = owner === process.pid ? `this process (pid ${owner})` : `process ${owner}`;
      throw new LocalStackStartError(`The data directory ${dataDir} is in use by ${who}: stop that local stack, or set PAPERFLOW_DATA_DIR to another directory.`);
    }
    await rm(path, { force: true });
  }
  throw new LocalStackStartError(`The data directory ${dataDir} is being locked by another process at the same moment; try again.`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
