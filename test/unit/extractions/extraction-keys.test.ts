import { describe, expect, it } from 'vitest';
import {
  attentionShardCount,
  attentionShardOf,
  indexAttributesOf,
  labelKeyPartition,
  labelValuePartition,
  sortValueOf,
} from '../../../src/extractions/extraction-keys.ts';

const base = {
  id: 'ext_01JZ0000000000000000000000',
  workspaceId: 'ws_a',
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-01T10:00:05.000Z',
};

describe('indexAttributesOf', () => {
  it('puts a terminal, counted record in the workspace and status indexes, by each sort attribute', () => {
    const attributes = indexAttributesOf({ ...base, status: 'COMPLETED', completedAt: '2026-01-01T10:00:05.000Z' }, { needsAttention: false });

    expect(attributes).toEqual({
      gsi1pk: 'WS#ws_a#EXT',
      gsi1sk: `2026-01-01T10:00:00.000Z#${base.id}`,
      gsi2pk: 'WS#ws_a#EXT#STATUS#COMPLETED',
      gsi2sk: `2026-01-01T10:00:00.000Z#${base.id}`,
      gsi3pk: 'WS#ws_a#EXT',
      gsi3sk: `2026-01-01T10:00:05.000Z#${base.id}`,
      gsi4pk: 'WS#ws_a#EXT#STATUS#COMPLETED',
      gsi4sk: `2026-01-01T10:00:05.000Z#${base.id}`,
      gsi5pk: 'WS#ws_a#EXT',
      gsi5sk: `2026-01-01T10:00:05.000Z#${base.id}`,
      gsi6pk: undefined,
      gsi6sk: undefined,
    });
  });

  it('keeps records in flight in the attention index, with completedAt sorting last', () => {
    const attributes = indexAttributesOf({ ...base, status: 'PROCESSING' }, { needsAttention: false });

    expect(attributes.gsi6pk).toBe(`EXT#ATTENTION#${attentionShardOf(base.id)}`);
    expect(attributes.gsi6sk).toBe(`2026-01-01T10:00:05.000Z#${base.id}`);
    expect(attributes.gsi5sk).toBe(`~#${base.id}`);
    expect(attributes.gsi5sk! > '9999-12-31T23:59:59.999Z').toBe(true);
  });

  it('keeps a terminal record in the attention index while something is left to finish', () => {
    const attributes = indexAttributesOf({ ...base, status: 'FAILED', completedAt: base.updatedAt }, { needsAttention: true });

    expect(attributes.gsi6pk).toMatch(/^EXT#ATTENTION#\d$/);
  });
});

describe('label partitions', () => {
  it('hash values so any text fits a key and cannot collide with separators', () => {
    const plain = labelValuePartition('ws_a', 'customer', 'acme');
    const tricky = labelValuePartition('ws_a', 'customer', 'acme#WS#ws_b');
    const long = labelValuePartition('ws_a', 'note', '€'.repeat(512));

    expect(plain).toMatch(/^WS#ws_a#EXTLABEL#customer=[A-Za-z0-9_-]{43}$/);
    expect(tricky).not.toBe(plain);
    expect(tricky).not.toContain('ws_b');
    expect(Buffer.byteLength(long)).toBeLessThan(200);
  });

  it('encode keys, so "a=b" and "a" with value "b=…" stay apart', () => {
    expect(labelKeyPartition('ws_a', 'a=b')).toBe('WS#ws_a#EXTLABELKEY#a%3Db');
    expect(labelValuePartition('ws_a', 'a=b', 'c')).not.toBe(labelValuePartition('ws_a', 'a', 'b=c'));
  });

  it('are per workspace', () => {
    expect(labelValuePartition('ws_a', 'k', 'v')).not.toBe(labelValuePartition('ws_b', 'k', 'v'));
  });
});

describe('attentionShardOf', () => {
  it('spreads identifiers over every shard', () => {
    const shards = new Set(Array.from({ length: 200 }, (_, index) => attentionShardOf(`ext_${index}`)));

    expect(shards.size).toBe(attentionShardCount);
  });
});

describe('sortValueOf', () => {
  it('uses the sentinel for records without completedAt', () => {
    expect(sortValueOf({ ...base }, 'completedAt')).toBe('~');
    expect(sortValueOf({ ...base }, 'updatedAt')).toBe(base.updatedAt);
  });
});
