// Line-item rows read by the engine scored against ground-truth rows (hand labels under
// test/fixtures/line-items/, or the embedded e-invoice XML's rows): each predicted row is paired with
// at most one true row, then row recall, row precision, per-column cell accuracy over the pairs and the
// calibration of row confidence are counted. Pure: the evaluation script does the reading.

import { distance } from 'fastest-levenshtein';
import * as z from 'zod/mini';

/** The columns of a `line_items` row (the `table` field's contract); a document prints some of them. */
export const lineItemRowSchema = z.object({
  description: z.optional(z.string()),
  product_code: z.optional(z.string()),
  quantity: z.optional(z.number()),
  unit: z.optional(z.string()),
  unit_price: z.optional(z.number()),
  tax_rate: z.optional(z.number()),
  amount: z.optional(z.number()),
  date: z.optional(z.string()),
});
export type LineItemRow = z.infer<typeof lineItemRowSchema>;

/** One hand-labelled document: test/fixtures/line-items/<corpus folder>/<file name>.rows.json. */
export const lineItemLabelSchema = z.object({
  document: z.string(),
  labelled_by: z.string(),
  rows: z.array(lineItemRowSchema),
  notes: z.array(z.string()),
});
export type LineItemLabel = z.infer<typeof lineItemLabelSchema>;

export interface PredictedRow {
  cells: LineItemRow;
  confidence?: number;
}

export const scoredColumns = ['amount', 'quantity', 'unit_price', 'description'] as const;
export type ScoredColumn = (typeof scoredColumns)[number];

/** Lower case, accents and punctuation dropped, one space between words: how descriptions compare. */
export function normalizeDescription(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * In [0, 1]: the better of the edit-distance similarity of the normalized texts and the share of words
 * the two have in common (Dice), so that an OCR slip and a description with a product code in front
 * both still read as the same line.
 */
export function descriptionSimilarity(first: string, second: string): number {
  const a = normalizeDescription(first);
  const b = normalizeDescription(second);
  if (a.length === 0 || b.length === 0) return 0;
  const editSimilarity = 1 - distance(a, b) / Math.max(a.length, b.length);
  const wordsOfA = a.split(' ');
  const wordsOfB = new Set(b.split(' '));
  const shared = wordsOfA.filter((word) => wordsOfB.has(word)).length;
  const wordSimilarity = (2 * shared) / (wordsOfA.length + wordsOfB.size);
  return Math.max(editSimilarity, wordSimilarity);
}

/** Amounts, quantities and prices as printed: equal to the cent. */
function sameNumber(expected: number | undefined, actual: number | undefined): boolean {
  return expected !== undefined && actual !== undefined && Math.abs(expected - actual) <= 0.01 + 1e-9;
}

/** Below this, two descriptions are taken for different lines. */
const SAME_LINE_DESCRIPTION = 0.6;

/**
 * How well a predicted row fits a true row, or undefined when it may not be paired with it. A pair
 * needs the same amount, or (when the amount differs or is missing on either side) a description alike
 * enough, or, with no description on either side, the same quantity and unit price. A wrong amount on
 * a line whose description was read is a cell error, not a missed row.
 */
function pairScore(truth: LineItemRow, predicted: LineItemRow): number | undefined {
  const amountAgrees = sameNumber(truth.amount, predicted.amount);
  const similarity = truth.description !== undefined && predicted.description !== undefined ? descriptionSimilarity(truth.description, predicted.description) : 0;
  const otherNumbersAgree = [sameNumber(truth.quantity, predicted.quantity), sameNumber(truth.unit_price, predicted.unit_price)].filter(Boolean).length;
  const eligible = amountAgrees || similarity >= SAME_LINE_DESCRIPTION || (truth.description === undefined && otherNumbersAgree === 2);
  if (!eligible) return undefined;
  return (amountAgrees ? 2 : 0) + similarity + 0.25 * otherNumbersAgree;
}

/**
 * The assignment of rows to columns of a square matrix with the lowest total cost (Hungarian method,
 * O(n³)); `assignment[row]` is the column given to the row.
 */
function cheapestAssignment(cost: number[][]): number[] {
  const size = cost.length;
  const rowPotential = new Array<number>(size + 1).fill(0);
  const columnPotential = new Array<number>(size + 1).fill(0);
  const rowOfColumn = new Array<number>(size + 1).fill(0);
  const previousColumn = new Array<number>(size + 1).fill(0);
  for (let row = 1; row <= size; row++) {
    rowOfColumn[0] = row;
    let column = 0;
    const smallestSlack = new Array<number>(size + 1).fill(Infinity);
    const visited = new Array<boolean>(size + 1).fill(false);
    do {
      visited[column] = true;
      const currentRow = rowOfColumn[column]!;
      let delta = Infinity;
      let nextColumn = 0;
      for (let candidate = 1; candidate <= size; candidate++) {
        if (visited[candidate]) continue;
        const slack = cost[currentRow - 1]![candidate - 1]! - rowPotential[currentRow]! - columnPotential[candidate]!;
        if (slack < smallestSlack[candidate]!) {
          smallestSlack[candidate] = slack;
          previousColumn[candidate] = column;
        }
        if (smallestSlack[candidate]! < delta) {
          delta = smallestSlack[candidate]!;
          nextColumn = candidate;
        }
      }
      for (let candidate = 0; candidate <= size; candidate++) {
        if (visited[candidate]) {
          rowPotential[rowOfColumn[candidate]!]! += delta;
          columnPotential[candidate]! -= delta;
        } else {
          smallestSlack[candidate]! -= delta;
        }
      }
      column = nextColumn;
    } while (rowOfColumn[column] !== 0);
    do {
      const before = previousColumn[column]!;
      rowOfColumn[column] = rowOfColumn[before]!;
      column = before;
    } while (column !== 0);
  }
  const assignment = new Array<number>(size).fill(-1);
  for (let column = 1; column <= size; column++) if (rowOfColumn[column]! > 0) assignment[rowOfColumn[column]! - 1] = column - 1;
  return assignment;
}

export interface RowPair {
  truth: number;
  predicted: number;
}

/**
 * Pairs predicted rows with true rows one to one: as many pairs as possible, and among those the ones
 * that agree most (same amount first, then description, quantity and unit price). Two receipt lines
 * of the same price are each paired once, never both with one predicted line.
 */
export function matchLineItems(truth: readonly LineItemRow[], predicted: readonly LineItemRow[]): RowPair[] {
  if (truth.length === 0 || predicted.length === 0) return [];
  const scores = truth.map((truthRow) => predicted.map((predictedRow) => pairScore(truthRow, predictedRow)));
  // Every possible pair is worth more than any difference in fit, so the most pairs are made first.
  const pairWorth = 10;
  const size = Math.max(truth.length, predicted.length);
  const cost = Array.from({ length: size }, (_, truthIndex) =>
    Array.from({ length: size }, (_, predictedIndex) => {
      const score = scores[truthIndex]?.[predictedIndex];
      return score === undefined ? 0 : -(pairWorth * size + score);
    }),
  );
  const assignment = cheapestAssignment(cost);
  return assignment.flatMap((predictedIndex, truthIndex) =>
    scores[truthIndex]?.[predictedIndex] === undefined ? [] : [{ truth: truthIndex, predicted: predictedIndex }],
  );
}

export interface CellTally {
  right: number;
  total: number;
}

export interface LineItemScore {
  truthRows: number;
  predictedRows: number;
  matchedRows: number;
  /** Per column: over paired rows whose true row has the column, how many predicted it right. */
  cells: Record<ScoredColumn, CellTally>;
  /** Predicted rows with confidence >= 0.9, and how many of them are paired with the right amount. */
  confidentRows: CellTally;
}

export const CONFIDENT_ROW = 0.9;

function cellIsRight(column: ScoredColumn, truth: LineItemRow, predicted: LineItemRow): boolean {
  if (column === 'description') return truth.description !== undefined && predicted.description !== undefined && normalizeDescription(truth.description) === normalizeDescription(predicted.description);
  return sameNumber(truth[column], predicted[column]);
}

function emptyCells(): Record<ScoredColumn, CellTally> {
  return { amount: { right: 0, total: 0 }, quantity: { right: 0, total: 0 }, unit_price: { right: 0, total: 0 }, description: { right: 0, total: 0 } };
}

/** One document's rows scored. */
export function scoreLineItems(truth: readonly LineItemRow[], predicted: readonly PredictedRow[]): LineItemScore {
  const pairs = matchLineItems(truth, predicted.map((row) => row.cells));
  const cells = emptyCells();
  for (const pair of pairs) {
    const truthRow = truth[pair.truth]!;
    const predictedRow = predicted[pair.predicted]!.cells;
    for (const column of scoredColumns) {
      if (truthRow[column] === undefined) continue;
      cells[column].total += 1;
      if (cellIsRight(column, truthRow, predictedRow)) cells[column].right += 1;
    }
  }
  const confidentRows = { right: 0, total: 0 };
  predicted.forEach((row, index) => {
    if ((row.confidence ?? 0) < CONFIDENT_ROW) return;
    confidentRows.total += 1;
    const pair = pairs.find((candidate) => candidate.predicted === index);
    const truthRow = pair ? truth[pair.truth] : undefined;
    // A true row that prints no amount is right when none was predicted either.
    if (truthRow && (truthRow.amount === undefined ? row.cells.amount === undefined : sameNumber(truthRow.amount, row.cells.amount))) confidentRows.right += 1;
  });
  return { truthRows: truth.length, predictedRows: predicted.length, matchedRows: pairs.length, cells, confidentRows };
}

/**
 * What went wrong on one document, one line each: true rows no predicted row was paired with, predicted
 * rows paired with no true row, and per pair the scored cells that differ (for --verbose).
 */
export function lineItemDifferences(truth: readonly LineItemRow[], predicted: readonly PredictedRow[]): string[] {
  const pairs = matchLineItems(truth, predicted.map((row) => row.cells));
  const show = (row: LineItemRow, confidence?: number): string => `${JSON.stringify(row)}${confidence !== undefined ? ` (confidence ${confidence})` : ''}`;
  const differences: string[] = [];
  truth.forEach((row, index) => {
    if (!pairs.some((pair) => pair.truth === index)) differences.push(`missed     ${show(row)}`);
  });
  predicted.forEach((row, index) => {
    if (!pairs.some((pair) => pair.predicted === index)) differences.push(`extra      ${show(row.cells, row.confidence)}`);
  });
  for (const pair of pairs) {
    const truthRow = truth[pair.truth]!;
    const predictedRow = predicted[pair.predicted]!;
    const wrong = scoredColumns.filter((column) => truthRow[column] !== undefined && !cellIsRight(column, truthRow, predictedRow.cells));
    if (wrong.length > 0) differences.push(`cells      ${wrong.map((column) => `${column}: expected ${JSON.stringify(truthRow[column])} got ${JSON.stringify(predictedRow.cells[column])}`).join('; ')} (confidence ${predictedRow.confidence})`);
  }
  return differences;
}

/** Scores of several documents added up (recall and precision are then over all their rows). */
export function addLineItemScores(scores: readonly LineItemScore[]): LineItemScore {
  const total: LineItemScore = { truthRows: 0, predictedRows: 0, matchedRows: 0, cells: emptyCells(), confidentRows: { right: 0, total: 0 } };
  for (const score of scores) {
    total.truthRows += score.truthRows;
    total.predictedRows += score.predictedRows;
    total.matchedRows += score.matchedRows;
    for (const column of scoredColumns) {
      total.cells[column].right += score.cells[column].right;
      total.cells[column].total += score.cells[column].total;
    }
    total.confidentRows.right += score.confidentRows.right;
    total.confidentRows.total += score.confidentRows.total;
  }
  return total;
}

/** Share of true rows that were paired; undefined with no true rows. */
export function rowRecall(score: LineItemScore): number | undefined {
  return score.truthRows === 0 ? undefined : score.matchedRows / score.truthRows;
}

/** Share of predicted rows that were paired; undefined with no predicted rows. */
export function rowPrecision(score: LineItemScore): number | undefined {
  return score.predictedRows === 0 ? undefined : score.matchedRows / score.predictedRows;
}

// The engine's outcome is read loosely here: `line_items` is not in every version of the engine, and
// ExtractedField's metadata type does not describe per-row metadata.
const lineItemsFieldSchema = z.object({
  type: z.literal('table'),
  value: z.nullable(z.array(z.record(z.string(), z.unknown()))),
  metadata: z.object({ rows: z.optional(z.array(z.object({ confidence: z.optional(z.number()) }))) }),
});

export type PredictedLineItems = { rows: PredictedRow[] } | { missing: string };

function cellsOf(value: Record<string, unknown>): LineItemRow {
  const cells: LineItemRow = {};
  for (const column of ['description', 'product_code', 'unit', 'date'] as const) {
    const cell = value[column];
    if (typeof cell === 'string') cells[column] = cell;
  }
  for (const column of ['quantity', 'unit_price', 'tax_rate', 'amount'] as const) {
    const cell = value[column];
    if (typeof cell === 'number') cells[column] = cell;
  }
  return cells;
}

/** The `line_items` rows of an extraction outcome, or why there are none to score. */
export function predictedLineItemsOf(outcome: { status: string; fields?: readonly { name: string }[] }): PredictedLineItems {
  if (outcome.status !== 'COMPLETED') return { missing: `extraction ${outcome.status}` };
  const field = outcome.fields?.find((candidate) => candidate.name === 'line_items');
  if (!field) return { missing: 'no line_items field in the output' };
  const parsed = lineItemsFieldSchema.safeParse(field);
  if (!parsed.success) return { missing: 'line_items is not a table field' };
  const rowMetadata = parsed.data.metadata.rows ?? [];
  return {
    rows: (parsed.data.value ?? []).map((value, index) => ({
      cells: cellsOf(value),
      ...(rowMetadata[index]?.confidence !== undefined ? { confidence: rowMetadata[index].confidence } : {}),
    })),
  };
}

/** One reading of one document scored: the eval's unit of line-item results. */
export interface LineItemResult {
  source: string;
  file: string;
  score: LineItemScore;
  /** Why no rows were predicted (no line_items field, a failed extraction), when none could be. */
  missingPrediction?: string;
  /** Missed and extra rows and wrong cells (lineItemDifferences). */
  differences?: string[];
}

/** The rows of an extraction outcome scored against the true rows of its document. */
export function scoreOutcomeLineItems(source: string, file: string, truth: readonly LineItemRow[], outcome: Parameters<typeof predictedLineItemsOf>[0]): LineItemResult {
  const predicted = predictedLineItemsOf(outcome);
  if ('missing' in predicted) return { source, file, score: scoreLineItems(truth, []), missingPrediction: predicted.missing };
  return { source, file, score: scoreLineItems(truth, predicted.rows), differences: lineItemDifferences(truth, predicted.rows) };
}

export interface LineItemSourceSummary {
  source: string;
  documents: number;
  score: LineItemScore;
}

/** Results added up per source (sorted), then over all of them as source "all". */
export function lineItemSummaryBySource(results: readonly LineItemResult[]): LineItemSourceSummary[] {
  const sources = [...new Set(results.map((result) => result.source))].sort();
  return [...sources, 'all'].map((source) => {
    const selected = results.filter((result) => source === 'all' || result.source === source);
    return { source, documents: selected.length, score: addLineItemScores(selected.map((result) => result.score)) };
  });
}

/** Each reason no rows could be predicted, with the number of readings it applies to. */
export function missingPredictionCounts(results: readonly LineItemResult[]): { reason: string; readings: number }[] {
  const counts = new Map<string, number>();
  for (const result of results) if (result.missingPrediction) counts.set(result.missingPrediction, (counts.get(result.missingPrediction) ?? 0) + 1);
  return [...counts].map(([reason, readings]) => ({ reason, readings }));
}
