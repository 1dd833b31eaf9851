import { describe, expect, it } from 'vitest';
import {
  addLineItemScores,
  descriptionSimilarity,
  lineItemDifferences,
  lineItemSummaryBySource,
  matchLineItems,
  missingPredictionCounts,
  normalizeDescription,
  predictedLineItemsOf,
  rowPrecision,
  rowRecall,
  scoreLineItems,
  scoreOutcomeLineItems,
  type LineItemRow,
  type PredictedRow,
} from '../../../../scripts/line-item-scoring.ts';

// The eval's line-item metrics (scripts/line-item-scoring.ts) over synthetic rows and outcomes.

const predicted = (cells: LineItemRow, confidence?: number): PredictedRow => ({ cells, ...(confidence !== undefined ? { confidence } : {}) });

/** An engine outcome shaped like the `table` field's contract. */
function outcomeWithLineItems(rows: { cells: Record<string, unknown>; confidence: number }[]) {
  return {
    status: 'COMPLETED',
    docType: 'invoice',
    pageCount: 1,
    fields: [
      { id: 'fld_1', name: 'total_amount', type: 'amount', value: 10, metadata: { extracted: true, confidence: 0.95 } },
      {
        id: 'fld_2',
        name: 'line_items',
        type: 'table',
        value: rows.map((row) => row.cells),
        metadata: { extracted: true, rows: rows.map((row) => ({ confidence: row.confidence, page: 1, placement: { x: 0, y: 0, width: 1, height: 0.1 }, cells: {} })) },
      },
    ],
  };
}

describe('descriptions', () => {
  it('compare without case, accents, punctuation or extra spaces', () => {
    expect(normalizeDescription('  Café   Latte, 1L ')).toBe('cafe latte 1l');
    expect(descriptionSimilarity('CAFÉ LATTE 1L', 'cafe latte, 1l')).toBe(1);
  });

  it('read as alike when one has a product code in front or an OCR slip', () => {
    expect(descriptionSimilarity('Office chair', 'E-COM07 Office chair')).toBeGreaterThanOrEqual(0.6);
    expect(descriptionSimilarity('GARDENIA BREAD', 'GARDENLA BREAD')).toBeGreaterThanOrEqual(0.6);
    expect(descriptionSimilarity('GARDENIA BREAD', 'Consulting hours')).toBeLessThan(0.6);
  });
});

describe('matching predicted rows with true rows', () => {
  it('pairs each predicted row with at most one true row, even when two lines have the same price', () => {
    const truth = [{ description: 'Mineral water', amount: 3.5 }, { description: 'Green tea', amount: 3.5 }];
    const onePrediction = [{ description: 'Mineral water', amount: 3.5 }];

    const score = scoreLineItems(truth, onePrediction.map((cells) => predicted(cells)));

    expect(score.matchedRows).toBe(1);
    expect(rowRecall(score)).toBe(0.5);
    expect(rowPrecision(score)).toBe(1);
  });

  it('pairs each true row with at most one predicted row (a line read twice counts once)', () => {
    const truth = [{ description: 'Mineral water', amount: 3.5 }];
    const readTwice = [{ description: 'Mineral water', amount: 3.5 }, { description: 'Mineral water', amount: 3.5 }];

    const score = scoreLineItems(truth, readTwice.map((cells) => predicted(cells)));

    expect(score.matchedRows).toBe(1);
    expect(rowPrecision(score)).toBe(0.5);
  });

  it('finds the best pairing, not the first one that fits', () => {
    // Pairing by amount in reading order would give Apple juice the Banana line and leave two rows unpaired.
    const truth = [{ description: 'Apple juice', amount: 5 }, { description: 'Banana', amount: 5 }];
    const rows = [{ description: 'Banana', amount: 5 }, { description: 'Apple juise', amount: 4 }];

    expect(matchLineItems(truth, rows)).toEqual([{ truth: 0, predicted: 1 }, { truth: 1, predicted: 0 }]);
  });

  it('counts a line whose description was read but whose amount was not as a wrong cell, not a missed row', () => {
    const truth = [{ description: 'Desk lamp', quantity: 2, unit_price: 12.5, amount: 25 }];

    const score = scoreLineItems(truth, [predicted({ description: 'Desk lamp', quantity: 2, unit_price: 12.5, amount: 2.5 })]);

    expect(score.matchedRows).toBe(1);
    expect(score.cells.amount).toEqual({ right: 0, total: 1 });
    expect(score.cells.quantity).toEqual({ right: 1, total: 1 });
    expect(score.cells.unit_price).toEqual({ right: 1, total: 1 });
    expect(score.cells.description).toEqual({ right: 1, total: 1 });
  });

  it('pairs rows with no amount on their description', () => {
    const truth = [{ description: 'Consulting hours', quantity: 3 }];

    const score = scoreLineItems(truth, [predicted({ description: 'Consulting hours', quantity: 3 })]);

    expect(score.matchedRows).toBe(1);
    expect(score.cells.amount.total).toBe(0);
  });

  it('pairs rows with neither amount nor description on quantity and unit price', () => {
    expect(matchLineItems([{ quantity: 2, unit_price: 4 }], [{ quantity: 2, unit_price: 4 }])).toHaveLength(1);
    expect(matchLineItems([{ quantity: 2, unit_price: 4 }], [{ quantity: 2, unit_price: 5 }])).toHaveLength(0);
  });

  it('does not pair lines that differ in amount and description', () => {
    const score = scoreLineItems([{ description: 'Desk lamp', amount: 25 }], [predicted({ description: 'Shipping', amount: 7.9 })]);

    expect(score).toMatchObject({ truthRows: 1, predictedRows: 1, matchedRows: 0 });
  });

  it('counts a description right only when it reads the same once normalized', () => {
    const truth = [{ description: 'GARDENIA BREAD', amount: 3.85 }, { description: 'Milo 1kg', amount: 24.9 }];

    const score = scoreLineItems(truth, [predicted({ description: 'GARDENLA BREAD', amount: 3.85 }), predicted({ description: 'MILO 1KG', amount: 24.9 })]);

    expect(score.cells.description).toEqual({ right: 1, total: 2 });
    expect(score.cells.amount).toEqual({ right: 2, total: 2 });
  });
});

describe('row confidence', () => {
  it('counts the confident rows that are paired with the right amount', () => {
    const truth = [{ description: 'Desk lamp', amount: 25 }, { description: 'Chair', amount: 80 }];
    const rows = [
      predicted({ description: 'Desk lamp', amount: 25 }, 0.95),
      predicted({ description: 'Chair', amount: 8 }, 0.92),
      predicted({ description: 'Subtotal', amount: 105 }, 0.91),
      predicted({ description: 'Rounding', amount: 0.02 }, 0.4),
    ];

    expect(scoreLineItems(truth, rows).confidentRows).toEqual({ right: 1, total: 3 });
  });
});

describe('scores of several documents', () => {
  it('add up rows and cells, and have no recall without true rows or precision without predicted rows', () => {
    const first = scoreLineItems([{ description: 'A', amount: 1 }], [predicted({ description: 'A', amount: 1 }, 0.95)]);
    const second = scoreLineItems([{ description: 'B', amount: 2 }, { description: 'C', amount: 3 }], []);

    const total = addLineItemScores([first, second]);

    expect(total).toMatchObject({ truthRows: 3, predictedRows: 1, matchedRows: 1, confidentRows: { right: 1, total: 1 } });
    expect(total.cells.amount).toEqual({ right: 1, total: 1 });
    expect(rowRecall(total)).toBeCloseTo(1 / 3);
    expect(rowPrecision(second)).toBeUndefined();
    expect(rowRecall(scoreLineItems([], []))).toBeUndefined();
  });
});

describe('rows of an engine outcome', () => {
  it('are the line_items value with each row metadata confidence', () => {
    const outcome = outcomeWithLineItems([
      { cells: { description: 'Desk lamp', quantity: 2, unit_price: 12.5, amount: 25, unit: 'pcs' }, confidence: 0.93 },
      { cells: { description: 'Chair', amount: 80 }, confidence: 0.6 },
    ]);

    expect(predictedLineItemsOf(outcome)).toEqual({
      rows: [
        { cells: { description: 'Desk lamp', quantity: 2, unit_price: 12.5, amount: 25, unit: 'pcs' }, confidence: 0.93 },
        { cells: { description: 'Chair', amount: 80 }, confidence: 0.6 },
      ],
    });
  });

  it('score against true rows through the same functions the eval uses', () => {
    const outcome = outcomeWithLineItems([{ cells: { description: 'Desk lamp', amount: 25 }, confidence: 0.95 }]);
    const rows = predictedLineItemsOf(outcome);
    if (!('rows' in rows)) throw new Error(rows.missing);

    const score = scoreLineItems([{ description: 'Desk lamp', amount: 25 }, { description: 'Chair', amount: 80 }], rows.rows);

    expect(score).toMatchObject({ truthRows: 2, predictedRows: 1, matchedRows: 1, confidentRows: { right: 1, total: 1 } });
  });

  it('are missing, with the reason, when the engine has no line_items field or did not complete', () => {
    const withoutLineItems = { status: 'COMPLETED', fields: [{ name: 'total_amount', type: 'amount', value: 10, metadata: { extracted: true } }] };

    expect(predictedLineItemsOf(withoutLineItems)).toEqual({ missing: 'no line_items field in the output' });
    expect(predictedLineItemsOf({ status: 'FAILED' })).toEqual({ missing: 'extraction FAILED' });
    const lineItemsAsText = { status: 'COMPLETED', fields: [{ name: 'line_items', type: 'string', value: 'x', metadata: {} }] };
    expect(predictedLineItemsOf(lineItemsAsText)).toEqual({
      missing: 'line_items is not a table field',
    });
  });
});

describe('the eval summary of engine outcomes', () => {
  const truth = [{ description: 'Desk lamp', amount: 25 }, { description: 'Chair', amount: 80 }];
  const withoutLineItems = { status: 'COMPLETED', fields: [{ name: 'total_amount', type: 'amount', value: 105, metadata: { extracted: true } }] };

  it('adds up the readings per source and over all, and counts the readings whose output has no line_items', () => {
    const results = [
      scoreOutcomeLineItems('text PDF, page only', 'a.pdf', truth, outcomeWithLineItems([{ cells: { description: 'Desk lamp', amount: 25 }, confidence: 0.95 }])),
      scoreOutcomeLineItems('image (OCR)', 'b.jpg', truth, withoutLineItems),
      scoreOutcomeLineItems('image (OCR)', 'c.jpg', [{ description: 'Tea', amount: 1.7 }], withoutLineItems),
    ];

    const summaries = lineItemSummaryBySource(results);

    expect(summaries.map(({ source, documents }) => [source, documents])).toEqual([['image (OCR)', 2], ['text PDF, page only', 1], ['all', 3]]);
    expect(summaries[0]?.score).toMatchObject({ truthRows: 3, predictedRows: 0, matchedRows: 0 });
    expect(summaries[1]?.score).toMatchObject({ truthRows: 2, predictedRows: 1, matchedRows: 1 });
    expect(summaries[2]?.score).toMatchObject({ truthRows: 5, predictedRows: 1, matchedRows: 1, confidentRows: { right: 1, total: 1 } });
    expect(missingPredictionCounts(results)).toEqual([{ reason: 'no line_items field in the output', readings: 2 }]);
  });

  it('has only the "all" line, with no rows, when nothing was scored', () => {
    expect(lineItemSummaryBySource([])).toEqual([{ source: 'all', documents: 0, score: addLineItemScores([]) }]);
    expect(missingPredictionCounts([])).toEqual([]);
  });

  it('lists the missed and extra rows and the wrong cells of a reading', () => {
    const differences = lineItemDifferences(
      [{ description: 'Desk lamp', quantity: 2, unit_price: 12.5, amount: 25 }, { description: 'Chair', amount: 80 }],
      [predicted({ description: 'Desk lamp', quantity: 2, unit_price: 25, amount: 25 }, 0.45), predicted({ description: 'Shipping', amount: 9 }, 0.7)],
    );

    expect(differences).toEqual([
      'missed     {"description":"Chair","amount":80}',
      'extra      {"description":"Shipping","amount":9} (confidence 0.7)',
      'cells      unit_price: expected 12.5 got 25 (confidence 0.45)',
    ]);
  });
});
