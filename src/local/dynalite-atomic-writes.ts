import { createRequire } from 'node:module';

// dynalite (DynamoDB on LevelDB) writes an item and its index entries as separate LevelDB writes:
// the old index entries are deleted, the new ones put, and only then the item itself. Each LevelDB
// write reaches the operating system before it is acknowledged, so a killed process keeps it; but a
// process killed between them leaves the table's indexes disagreeing with its items for good: an
// index entry gone while its item still stands (a record missing from a list, or from the sparse
// index a sweeper reads) or an index copy newer than its item. DynamoDB never leaves an item and its
// indexes apart. `makeDynaliteWritesAtomic` makes each item write one LevelDB batch with its index
// entries, which LevelDB applies (and recovers after a kill) whole or not at all.
//
// It replaces `updateIndexes` of dynalite's db module, which PutItem, UpdateItem, DeleteItem (and
// BatchWriteItem through them) call with the item's old and new versions under the item's lock,
// right before they write the item: the replacement writes the item in the same batch, and their own
// write that follows writes the same value again. Written for dynalite 4.0.0 (pinned in package.json);
// test/faults/local-dynalite-durability.test.ts checks it against the installed version.

interface DynaliteKeyElement {
  AttributeName: string;
}

interface DynaliteIndex {
  IndexName: string;
  KeySchema: DynaliteKeyElement[];
}

interface DynaliteTable {
  TableName: string;
  LocalSecondaryIndexes?: DynaliteIndex[];
  GlobalSecondaryIndexes?: DynaliteIndex[];
}

type DynaliteItem = Record<string, unknown>;

type BatchOperation = { type: 'put'; key: string; value: unknown } | { type: 'del'; key: string };

interface DynaliteStore {
  db: { batch(operations: BatchOperation[], callback: (error?: Error | null) => void): void };
}

interface IndexActions {
  puts: { index: string; key: string; item: DynaliteItem }[];
  deletes: { index: string; key: string }[];
}

interface DynaliteDbModule {
  updateIndexes(store: DynaliteStore, table: DynaliteTable, existingItem: DynaliteItem | undefined | null, item: DynaliteItem | undefined | null, callback: (error?: Error | null) => void): void;
  getIndexActions(indexes: DynaliteIndex[], existingItem: DynaliteItem | undefined | null, item: DynaliteItem | undefined | null, table: DynaliteTable): IndexActions;
  createKey(item: DynaliteItem, table: DynaliteTable): string;
  paperflowAtomicWrites?: true;
}

const require = createRequire(import.meta.url);

// dynalite keeps every table in one LevelDB, its parts told apart by key prefixes (db/index.js, getSubDb).
const itemPrefix = (table: DynaliteTable) => `item-${table.TableName}~`;
const indexPrefix = (indexType: 'Local' | 'Global', table: DynaliteTable, indexName: string) =>
  `index-${indexType.toLowerCase()}~${table.TableName}~${indexName}~`;

/** The LevelDB batch that writes `item` (undefined: deletes `existingItem`) with its index entries. */
export function atomicItemWrite(db: Pick<DynaliteDbModule, 'getIndexActions' | 'createKey'>, table: DynaliteTable, existingItem: DynaliteItem | undefined | null, item: DynaliteItem | undefined | null): BatchOperation[] {
  const deletes: BatchOperation[] = [];
  const puts: BatchOperation[] = [];
  for (const indexType of ['Local', 'Global'] as const) {
    const actions = db.getIndexActions(table[`${indexType}SecondaryIndexes`] ?? [], existingItem, item, table);
    for (const action of actions.deletes) deletes.push({ type: 'del', key: indexPrefix(indexType, table, action.index) + action.key });
    for (const action of actions.puts) puts.push({ type: 'put', key: indexPrefix(indexType, table, action.index) + action.key, value: action.item });
  }
  const itemKey = itemPrefix(table) + db.createKey((item ?? existingItem)!, table);
  return [...deletes, ...puts, item ? { type: 'put', key: itemKey, value: item } : { type: 'del', key: itemKey }];
}

/** In the process (thread) that runs dynalite, before it serves: every item write becomes one batch. */
export function makeDynaliteWritesAtomic(): void {
  const db = require('dynalite/db/index.js') as DynaliteDbModule;
  if (db.paperflowAtomicWrites) return;
  db.updateIndexes = function updateIndexesWithTheItem(store, table, existingItem, item, callback) {
    if (!existingItem && !item) return callback();
    let operations: BatchOperation[];
    try {
      operations = atomicItemWrite(db, table, existingItem, item);
    } catch (error) {
      return callback(error as Error);
    }
    store.db.batch(operations, (error) => callback(error ?? null));
  };
  db.paperflowAtomicWrites = true;
}
