import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineItemLabelSchema } from '../../../../scripts/line-item-scoring.ts';
import { corpusFile } from '../../../support/document-builders.ts';

// The hand-labelled line items the eval scores against (test/fixtures/line-items/README.md): each file
// is well formed and labels the corpus document its path names.

const labelDirectory = path.resolve(import.meta.dirname, '../../../fixtures/line-items');
const labelFiles = readdirSync(labelDirectory, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.rows.json'))
  .map((name) => name.split(path.sep).join('/'))
  .sort();

describe('line-item labels', () => {
  it('cover every invoice2data document and at least 20 receipts', () => {
    expect(labelFiles.filter((name) => name.startsWith('invoice2data/'))).toHaveLength(16);
    expect(labelFiles.filter((name) => name.startsWith('receipts/')).length).toBeGreaterThanOrEqual(20);
  });

  it.each(labelFiles)('%s is well formed and names its document', (name) => {
    const label = lineItemLabelSchema.parse(JSON.parse(readFileSync(path.join(labelDirectory, name), 'utf8')));

    expect(label.document).toBe(name.slice(0, -'.rows.json'.length));
    expect(existsSync(corpusFile(label.document))).toBe(true);
    // A row is a line of the item table: it has at least a description or an amount.
    for (const row of label.rows) expect(row.description !== undefined || row.amount !== undefined).toBe(true);
    // A document without rows says why.
    if (label.rows.length === 0) expect(label.notes.length).toBeGreaterThan(0);
  });
});
