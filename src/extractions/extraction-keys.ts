import { createHash } from 'node:crypto';
import type { ExtractionRecord, ExtractionStatus } from './extraction.ts';
import { isTerminal } from './extraction.ts';

/*
 * Key layout of extractions in the single records table (docs/extractions.md explains it at length).
 *
 * Record           pk EXT#<id>                         sk EXTRACTION
 * Output           pk EXT#<id>                         sk OUTPUT        (or an S3 object when large)
 * Feedback         pk EXT#<id>                         sk FEEDBACK#<fb_id>
 * Correction       pk EXT#<id>                         sk CORRECTION#<fld_id>  (aws/dynamodb-extraction-outputs.ts)
 * Content fix      pk WS#<ws>#EXTCORRECTIONS           sk <sha256>#<docType>#<field>  (aws/dynamodb-content-corrections.ts)
 * Label value      pk WS#<ws>#EXTLABEL#<key>=<hash(v)> sk <ext_id>      written right after the record
 * Label presence   pk WS#<ws>#EXTLABELKEY#<key>        sk <ext_id>
 * Content hash     pk WS#<ws>#EXTSHA#<sha256>          sk <ext_id>      duplicate policy
 * Counters         pk WS#<ws>#EXTCOUNTS                sk COUNTS        total and one count per status
 *
 * The record projects itself into the generic indexes; each index answers one list shape with a
 * key condition, so a page is a Query, never a Scan, and other workspaces are never read:
 *   gsi1  WS#<ws>#EXT                 createdAt#id                 all, sorted by createdAt (from/to in the key)
 *   gsi2  WS#<ws>#EXT#STATUS#<s>      createdAt#id                 one status, by createdAt (from/to in the key)
 *   gsi3  WS#<ws>#EXT                 updatedAt#id                 all, by updatedAt
 *   gsi4  WS#<ws>#EXT#STATUS#<s>      updatedAt#id                 one status, by updatedAt; for a terminal
 *                                                                  status also by completedAt (equal there)
 *   gsi5  WS#<ws>#EXT                 (completedAt|~)#id           all, by completedAt (in flight sort last)
 *   gsi6  EXT#ATTENTION#<shard>       updatedAt#id                 sparse: in flight, counters not yet
 *                                                                  synced, or being deleted (the sweeper)
 * A record being deleted leaves gsi1-gsi5 in the same write that marks it, so lists never show it.
 */

export const recordSortKey = 'EXTRACTION';
export const outputSortKey = 'OUTPUT';
export const feedbackSortKeyPrefix = 'FEEDBACK#';
export const attentionShardCount = 8;

/** Sorts after every ISO timestamp: records without completedAt come last ascending, first descending. */
export const notCompletedSortValue = '~';

export const extractionKey = (extractionId: string) => ({ pk: `EXT#${extractionId}`, sk: recordSortKey });
export const outputKey = (extractionId: string) => ({ pk: `EXT#${extractionId}`, sk: outputSortKey });
export const feedbackKey = (extractionId: string, feedbackId: string) => ({ pk: `EXT#${extractionId}`, sk: `${feedbackSortKeyPrefix}${feedbackId}` });
export const countersKey = (workspaceId: string) => ({ pk: `WS#${workspaceId}#EXTCOUNTS`, sk: 'COUNTS' });

export const workspacePartition = (workspaceId: string) => `WS#${workspaceId}#EXT`;
export const statusPartition = (workspaceId: string, status: ExtractionStatus) => `WS#${workspaceId}#EXT#STATUS#${status}`;
export const attentionPartition = (shard: number) => `EXT#ATTENTION#${shard}`;

// Keys are short (64 characters) and kept readable; values (512 characters) are hashed so that any
// text fits DynamoDB's key size and no character can collide with the separators.
export function labelValuePartition(workspaceId: string, key: string, value: string): string {
  const valueHash = createHash('sha256').update(value, 'utf8').digest('base64url');
  return `WS#${workspaceId}#EXTLABEL#${encodeURIComponent(key)}=${valueHash}`;
}

export function labelKeyPartition(workspaceId: string, key: string): string {
  return `WS#${workspaceId}#EXTLABELKEY#${encodeURIComponent(key)}`;
}

export const contentHashPartition = (workspaceId: string, sha256: string) => `WS#${workspaceId}#EXTSHA#${sha256}`;

export function attentionShardOf(extractionId: string): number {
  return createHash('sha256').update(extractionId).digest()[0]! % attentionShardCount;
}

export type SortAttribute = 'createdAt' | 'updatedAt' | 'completedAt';

export function sortValueOf(record: Pick<ExtractionRecord, 'createdAt' | 'updatedAt' | 'completedAt'>, attribute: SortAttribute): string {
  if (attribute === 'completedAt') return record.completedAt ?? notCompletedSortValue;
  return record[attribute];
}

/** The index attributes a record carries in its current state (undefined: not in that index). */
export function indexAttributesOf(
  record: Pick<ExtractionRecord, 'id' | 'workspaceId' | 'status' | 'createdAt' | 'updatedAt' | 'completedAt'>,
  options: { needsAttention: boolean },
): Record<string, string | undefined> {
  const all = workspacePartition(record.workspaceId);
  const byStatus = statusPartition(record.workspaceId, record.status);
  const attention = options.needsAttention || !isTerminal(record.status);
  return {
    gsi1pk: all,
    gsi1sk: `${record.createdAt}#${record.id}`,
    gsi2pk: byStatus,
    gsi2sk: `${record.createdAt}#${record.id}`,
    gsi3pk: all,
    gsi3sk: `${record.updatedAt}#${record.id}`,
    gsi4pk: byStatus,
    gsi4sk: `${record.updatedAt}#${record.id}`,
    gsi5pk: all,
    gsi5sk: `${sortValueOf(record, 'completedAt')}#${record.id}`,
    gsi6pk: attention ? attentionPartition(attentionShardOf(record.id)) : undefined,
    gsi6sk: attention ? `${record.updatedAt}#${record.id}` : undefined,
  };
}

export const listIndexAttributeNames = ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'gsi3pk', 'gsi3sk', 'gsi4pk', 'gsi4sk', 'gsi5pk', 'gsi5sk'] as const;
