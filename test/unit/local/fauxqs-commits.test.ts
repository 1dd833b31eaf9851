import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fauxqsPersistenceModule, makeFauxqsCommitsUnsynced } from '../../../src/local/fauxqs-commits.ts';

// fauxqs's SQLite persistence with makeFauxqsCommitsUnsynced applied (as startEmulators does), opened
// directly on a data folder of its own: checks the installed fauxqs still has the constructor step the
// patch hooks into, and that its database is left in WAL mode, where NORMAL still commits every change
// to the WAL before the write returns.

interface OpenedPersistence {
  db: { prepare(sql: string): { get(): Record<string, unknown> | undefined } };
  close(): void;
}

let dataDir: string;
const opened: OpenedPersistence[] = [];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'paperflow-fauxqs-'));
});

afterEach(async () => {
  for (const persistence of opened.splice(0)) persistence.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function openPersistence(): Promise<OpenedPersistence> {
  const { PersistenceManager } = (await fauxqsPersistenceModule()) as unknown as { PersistenceManager: new (dataDir: string) => OpenedPersistence };
  const persistence = new PersistenceManager(dataDir);
  opened.push(persistence);
  return persistence;
}

describe('makeFauxqsCommitsUnsynced', () => {
  it('opens fauxqs databases in WAL mode with commits that are not synced one by one (NORMAL)', async () => {
    await makeFauxqsCommitsUnsynced();
    await makeFauxqsCommitsUnsynced(); // applied twice (two stacks in one process): still one wrapper
    const persistence = await openPersistence();
    expect(persistence.db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    // SQLite's default, and fauxqs's as shipped, is FULL (2): an fsync of the WAL on every commit.
    expect(persistence.db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 1 });
  });
});
