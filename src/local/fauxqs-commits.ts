// fauxqs (SQS) writes every queue change through to SQLite as its own commit (a message sent, received,
// deleted) with node:sqlite's synchronous API, on the emulators' thread. It opens its database in WAL
// mode and leaves SQLite's default `synchronous = FULL`, so every commit also waits for an fsync of the
// WAL: about 5 ms on this project's machines against 0.06 ms without it, and during that wait the
// thread serves nothing else, dynalite included. A fan-out's queue messages (hand-off sent, received,
// deleted) held the thread for about as long as its DynamoDB writes took.
//
// `synchronous = NORMAL` in WAL mode writes each commit to the WAL (to the operating system) before
// the call returns and syncs only at checkpoints: a killed process (kill -9) keeps every acknowledged
// change, as it keeps dynalite's LevelDB writes, which are not synced either; a power loss may lose
// the last ones, as README.md says of every emulator's data. Deployed, SQS is not on this path.
//
// It wraps `prepareStatements` of fauxqs's PersistenceManager, which its constructor calls once it
// has opened the database and set WAL mode, before any queue is loaded or written. Written for fauxqs
// 2.4.1 (pinned in package.json); test/unit/local/fauxqs-commits.test.ts checks it against the
// installed version.

interface FauxqsPersistence {
  db: { exec(sql: string): void };
  prepareStatements(): unknown;
}

interface FauxqsPersistenceModule {
  PersistenceManager: { prototype: FauxqsPersistence & { paperflowUnsyncedCommits?: true } };
}

/** fauxqs's persistence module, the very instance its `startFauxqs` uses (the package exports only its entry). */
export async function fauxqsPersistenceModule(): Promise<FauxqsPersistenceModule> {
  return (await import(new URL('./persistence.js', import.meta.resolve('fauxqs')).href)) as FauxqsPersistenceModule;
}

/** In the thread that runs fauxqs, before it starts: its SQLite commits go to the WAL without an fsync each. */
export async function makeFauxqsCommitsUnsynced(): Promise<void> {
  const { PersistenceManager } = await fauxqsPersistenceModule();
  const prototype = PersistenceManager.prototype;
  if (prototype.paperflowUnsyncedCommits) return;
  const prepareStatements = prototype.prepareStatements;
  prototype.prepareStatements = function prepareStatementsWithoutSyncedCommits(this: FauxqsPersistence) {
    this.db.exec('PRAGMA synchronous = NORMAL');
    return prepareStatements.call(this);
  };
  prototype.paperflowUnsyncedCommits = true;
}
