import { describe, expect, it } from 'vitest';
import type { ExtractedField } from '../../../src/console/api-types.ts';
import { pageBoxesOf, selectionKeyOf } from '../../../src/console/views/field-selection.ts';

const placement = (y: number) => ({ x: 0.1, y, width: 0.5, height: 0.01 });
const total: ExtractedField = { id: 'fld_total', name: 'total_amount', type: 'number', value: 85, metadata: { extracted: true, confidence: 0.8, page: 1, placement: placement(0.7) } };
const lineItems: ExtractedField = {
  id: 'fld_items',
  name: 'line_items',
  type: 'table',
  value: [
    { description: 'Claw hammer', amount: 25 },
    { description: 'Tape measure', amount: 20 },
  ],
  metadata: {
    extracted: true,
    confidence: 0.95,
    page: 1,
    placement: placement(0.3),
    rows: [
      { confidence: 0.97, page: 1, placement: placement(0.31), cells: { description: { confidence: 0.97, placement: placement(0.311) }, amount: { confidence: 0.9 } } },
      { confidence: 0.5, page: 2, placement: placement(0.2), cells: { description: { confidence: 0.5, placement: placement(0.201) }, amount: { confidence: 0.4, placement: placement(0.202) } } },
    ],
  },
};
const unplaced: ExtractedField = { id: 'fld_iban', name: 'iban', type: 'string', value: null, metadata: { extracted: false } };

describe('pageBoxesOf', () => {
  it('draws every placed field, a table as its row count, and no row of a table nothing of which is selected', () => {
    expect(pageBoxesOf([total, lineItems, unplaced], undefined)).toEqual([
      { key: 'fld_total', selection: { fieldId: 'fld_total' }, label: 'total_amount: 85', confidence: 0.8, page: 1, placement: placement(0.7) },
      { key: 'fld_items', selection: { fieldId: 'fld_items' }, label: 'line_items: 2 rows', confidence: 0.95, page: 1, placement: placement(0.3) },
    ]);
    expect(pageBoxesOf([total, lineItems], { fieldId: 'fld_items' })).toHaveLength(2);
  });

  it('adds the selected row\'s box on its own page, or the selected cell\'s with the cell\'s confidence', () => {
    const row = { fieldId: 'fld_items', row: 1 };
    expect(pageBoxesOf([total, lineItems], row).at(-1)).toEqual({ key: 'fld_items/1', selection: row, label: 'line_items row 2', confidence: 0.5, page: 2, placement: placement(0.2) });
    const cell = { fieldId: 'fld_items', row: 1, column: 'amount' };
    expect(pageBoxesOf([total, lineItems], cell).at(-1)).toEqual({ key: 'fld_items/1/amount', selection: cell, label: 'line_items row 2, amount: 20', confidence: 0.4, page: 2, placement: placement(0.202) });
  });

  it('draws nothing more for a cell without a placement, or a row the table does not have', () => {
    expect(pageBoxesOf([total, lineItems], { fieldId: 'fld_items', row: 0, column: 'amount' })).toHaveLength(2);
    expect(pageBoxesOf([total, lineItems], { fieldId: 'fld_items', row: 5 })).toHaveLength(2);
  });

  it('keys a selection so that a field, its row and its cell never share one', () => {
    expect(new Set([selectionKeyOf({ fieldId: 'fld_items' }), selectionKeyOf({ fieldId: 'fld_items', row: 0 }), selectionKeyOf({ fieldId: 'fld_items', row: 0, column: 'amount' })]).size).toBe(3);
  });
});
