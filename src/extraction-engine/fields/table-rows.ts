// Reads a table from the page layout: a header row names the columns and gives their bands across
// the page; below it, each line that prints a line total in its band is a row, lines tight under a
// row continue its description, and subtotals, carried-forward lines, section titles and notes are
// left out. A table that does not end on its page goes on at the top of the next one, under a
// repeated header or in the bands of the last one. Everything is computed once per page row.

import { distance } from 'fastest-levenshtein';
import type { Placement } from '../document.ts';
import { findAmounts } from '../values/amount.ts';
import { findDates } from '../values/date.ts';
import { normalizeForMatching } from '../values/text-normalization.ts';
import { roundConfidence } from './candidate-selection.ts';
import { unitePlacements, type DocumentLayout, type LayoutPage, type LayoutRow, type LayoutSegment, type LayoutWord } from './document-layout.ts';
import { CELL_CHOSEN_BY_ARITHMETIC, multipliesToTheCent, rowAddsUp, tableArithmetic, type RowArithmetic } from './table-arithmetic.ts';
import type { ExtractedTable, TableCell, TableCellValue, TableColumnSpecification, TableRow } from './table-specification.ts';

export interface TableReadingOptions {
  /** Rows (page:rowIndex) that print a totals label at their start: the table ends at the first one. */
  totalsRows: Set<string>;
  /** Amounts the rows' line totals may add up to (net, total), when the page prints them. */
  sums: number[];
  /** The document's currency has no cents in use (rupiah, yen, won): its money prints as "22.000". */
  wholeUnitMoney?: boolean;
}

interface HeaderPhrase {
  column: number;
  tokens: string[];
}

interface Column {
  index: number;
  specification: TableColumnSpecification;
  left: number;
  right: number;
}

interface PlacedWord extends LayoutWord {
  column: number;
}

interface RowDraft {
  pageNumber: number;
  words: PlacedWord[];
  /** Lines added to the row below its own (wrapped descriptions). */
  continuationLines: number;
  /** A discount printed on a line of its own under the row ("abzgl. 16,7% Rabatt  -2,00"). */
  allowance?: LineAllowance;
}

/** A percentage off a row and the amount it takes off, as printed on the line under the row. */
interface LineAllowance {
  percent: number;
  /** Positive: what the line takes off the row's line total. */
  amount: number;
  words: LayoutWord[];
}

/** Start of a line that closes a section of the table or carries its sum to the next page. */
const SUBTOTAL_START = /^(?:sub-?\s?total|zwischensumme|sous-?\s?total|subtotaal|subtotale|podsuma|summe|total|gesamt|totaal|suma|razem|somme)\b/;
/** Allowances and charges printed among the rows ("Zuschlag Versandkosten", "zzgl. Fracht", "Rabatt 10 %"): not items. */
const ALLOWANCE_OR_CHARGE = /^(?:zuschlag|zzgl|zuzuglich|abschlag|rabatt|nachlass|abzgl|discount|surcharge|allowance|remise|korting|rabat|skonto|sconto|descuento)\b/;
/** A word that names a discount (not a surcharge, not a discount for paying early). */
const DISCOUNT_WORD = /\b(?:abzgl|abzuglich|rabatt|nachlass|abschlag|discount|less|remise|korting|rabat|sconto|descuento)\b/;
const CARRIED_FORWARD = /^(?:ubertrag|uebertrag|carried forward|carry forward|brought forward|b\/f|c\/f|a reporter|report|transport|van transport|przeniesienie|z przeniesienia|riporto|suma z przeniesienia)\b/;
/** Header words repeated under the header ("EUR", "netto", "%") are not rows. */
const NUMERIC_WORD = /^[-+−(]?[$€£¥₹]?\d[\d.,'’]*\)?%?-?$/;
const CURRENCY_SIGN = /[$€£¥₹]/u;
/** A line tight under a row belongs to it when the gap is below this many line heights. */
const CONTINUATION_GAP = 0.85;
/** A gap of more than this many line heights after the last row ends the table. */
const TABLE_END_GAP = 4.5;
const MAX_CONTINUATION_LINES = 3;

/** Header phrases by their first word, longest first: one map lookup per word of a row. */
type PhraseIndex = Map<string, HeaderPhrase[]>;

const phraseIndexes = new WeakMap<TableColumnSpecification[], PhraseIndex>();

function phraseIndexOf(columns: TableColumnSpecification[]): PhraseIndex {
  let index = phraseIndexes.get(columns);
  if (!index) {
    index = new Map();
    for (const phrase of headerPhrases(columns)) {
      for (const first of new Set([phrase.tokens[0]!, phrase.tokens[0]!.replace(/[.:]$/, '')])) index.set(first, [...(index.get(first) ?? []), phrase]);
    }
    phraseIndexes.set(columns, index);
  }
  return index;
}

function headerPhrases(columns: TableColumnSpecification[]): HeaderPhrase[] {
  const phrases: HeaderPhrase[] = [];
  columns.forEach((column, index) => {
    for (const labels of Object.values(column.headerLabels)) {
      for (const label of labels) {
        const tokens = normalizeForMatching(label).split(' ').filter(Boolean);
        if (tokens.length > 0) phrases.push({ column: index, tokens });
      }
    }
  });
  // Longest first, so "unit price" wins over "unit".
  return phrases.sort((left, right) => right.tokens.length - left.tokens.length);
}

interface HeaderMatch {
  columns: Column[];
  matchedWords: number;
  words: number;
}

/** The columns a row names, each with the span of its header words; words that name nothing are skipped. */
function matchHeader(row: LayoutRow, phrases: PhraseIndex, specifications: TableColumnSpecification[]): HeaderMatch {
  const words = row.segments.flatMap((segment) => segment.words);
  // The row's normalized text, split, gives each word's key at once (words hold no spaces).
  const split = normalizedRowText(row).split(' ');
  // The unit or currency a header word names in brackets ("Price(₹)", "Tax(%)", "Amount(EUR)") is not part of its label.
  const keys = (split.length === words.length ? split : words.map((word) => normalizeForMatching(word.text))).map((key) => key.replace(/:$/, '').replace(/(?<=\p{L})\s*\([^()]{1,4}\)$/u, ''));
  const columns: Column[] = [];
  let matchedWords = 0;
  for (let at = 0; at < words.length; ) {
    const phrase =
      phrases.get(keys[at]!)?.find((candidate) => candidate.tokens.every((token, offset) => keys[at + offset] === token || keys[at + offset] === token.replace(/[.:]$/, ''))) ??
      (isOcr(row) ? misreadHeaderWord(keys[at]!, phrases) : undefined) ??
      slashedHeaderWord(keys[at]!, phrases);
    if (!phrase) {
      at += 1;
      continue;
    }
    const spanned = words.slice(at, at + phrase.tokens.length);
    const box = unitePlacements(spanned.map((word) => word.box));
    if (!columns.some((column) => column.index === phrase.column)) {
      columns.push({ index: phrase.column, specification: specifications[phrase.column]!, left: box.x, right: box.x + box.width });
    }
    matchedWords += spanned.length;
    at += phrase.tokens.length;
  }
  return { columns, matchedWords, words: words.length };
}

/**
 * Two names of one column joined by a slash ("Item/Desc.", "Qty/Unit"): the column the first names,
 * where both name a column. Labels that hold a slash themselves ("U/Price", "HSN/SAC") match whole first.
 */
function slashedHeaderWord(key: string, phrases: PhraseIndex): HeaderPhrase | undefined {
  const parts = key.split('/');
  if (parts.length !== 2) return undefined;
  const [first, second] = parts.map((part) => phrases.get(part)?.find((candidate) => candidate.tokens.length === 1));
  return first && second ? first : undefined;
}

/** OCR words carry a reading confidence; a text layer's do not. */
function isOcr(row: LayoutRow): boolean {
  return row.segments[0]?.words[0]?.confidence !== undefined;
}

/** Header words of five letters or more are long enough to be recognised with one letter misread. */
const MISREAD_HEADER_WORD_LENGTH = 5;

/**
 * A one-word header label the camera misread by one letter ("Awount" for "Amount", "Quantlty"): only
 * on OCR pages, and only for words long enough that one letter does not make another word.
 */
function misreadHeaderWord(key: string, phrases: PhraseIndex): HeaderPhrase | undefined {
  if (key.length < MISREAD_HEADER_WORD_LENGTH || !/^\p{L}+$/u.test(key)) return undefined;
  for (const [first, candidates] of phrases) {
    if (Math.abs(first.length - key.length) > 1 || first.length < MISREAD_HEADER_WORD_LENGTH) continue;
    const single = candidates.find((candidate) => candidate.tokens.length === 1);
    if (single && distance(first, key) === 1) return single;
  }
  return undefined;
}

/** A row that reads as a table header: several column names, mostly nothing else, no amounts. */
export function readsAsTableHeader(row: LayoutRow, specifications: TableColumnSpecification[]): boolean {
  return headerOf(row, phraseIndexOf(specifications), specifications) !== undefined;
}

function printsMoney(row: LayoutRow): boolean {
  return row.segments.some((segment) => /\d[.,]\d{2}(?!\d)/.test(segment.text));
}

/** A row that reads as a table header: several column names, mostly nothing else, no amounts. */
function headerOf(row: LayoutRow, phrases: PhraseIndex, specifications: TableColumnSpecification[]): Column[] | undefined {
  if (printsMoney(row)) return undefined;
  const match = matchHeader(row, phrases, specifications);
  const roles = new Set(match.columns.map((column) => column.specification.role));
  const numeric = roles.has('line-total') || roles.has('unit-price') || roles.has('quantity');
  const enough = match.columns.length >= 3 || (match.columns.length === 2 && (roles.has('line-total') || roles.has('quantity')) && roles.has('description'));
  if (!numeric || !enough || match.matchedWords < match.words * 0.5) return undefined;
  return match.columns;
}

/** Header lines printed just above or below the header ("Positions-" / "betrag") add the columns they name. */
function withAdjacentHeaderLines(page: LayoutPage, headerIndex: number, columns: Column[], phrases: PhraseIndex, specifications: TableColumnSpecification[]): { columns: Column[]; lastHeaderIndex: number } {
  const merged = [...columns];
  const header = page.rows[headerIndex]!;
  const extent = tableExtent(page, headerIndex);
  let lastHeaderIndex = headerIndex;
  for (const step of [-1, 1, 2, 3]) {
    const row = withinTableWidth(page.rows[headerIndex + step], extent, step > 0 ? (segment) => headsNumbersBelow(page, headerIndex + step, segment) : undefined);
    if (!row || printsMoney(row)) {
      if (step > 0) break;
      continue;
    }
    const distance = step < 0 ? header.top - row.bottom : row.top - page.rows[headerIndex + step - 1]!.bottom;
    if (distance > page.typicalLineHeight * 1.2) {
      if (step > 0) break;
      continue;
    }
    // A line with digits in it is already the first row, not a header line.
    if (row.segments.some((segment) => /\d/.test(segment.text.replace(/%/g, '')))) {
      if (step > 0) break;
      continue;
    }
    const match = matchHeader(row, phrases, specifications);
    for (const column of match.columns) {
      const overlaps = merged.some((existing) => existing.index === column.index || (column.left < existing.right && existing.left < column.right));
      if (!overlaps) merged.push(column);
    }
    // A line under the header that names no column is the first item's name, not more of the header.
    if (step > 0 && match.columns.length === 0) break;
    if (step > 0) lastHeaderIndex = headerIndex + step;
  }
  return { columns: merged.sort((left, right) => left.left - right.left), lastHeaderIndex };
}

/**
 * How far left and right the table runs: its header row, widened to the numbers printed in the rows just
 * under it. A scan's header words stand on lines of their own where their baselines differ ("Positions-"
 * / "betrag" right of a header row that ends at "Menge"), and the amounts under them show that they head
 * a column rather than stand in the margin.
 */
function tableExtent(page: LayoutPage, headerIndex: number): { left: number; right: number } {
  const header = page.rows[headerIndex]!;
  let left = Math.min(...header.segments.map((segment) => segment.box.x));
  let right = Math.max(...header.segments.map((segment) => segment.box.x + segment.box.width));
  for (const row of page.rows.slice(headerIndex + 1, headerIndex + 1 + ROWS_THAT_WIDEN_THE_HEADER)) {
    for (const segment of row.segments) {
      if (!printsMoney({ ...row, segments: [segment] })) continue;
      left = Math.min(left, segment.box.x);
      right = Math.max(right, segment.box.x + segment.box.width);
    }
  }
  return { left, right };
}

/** Rows under a header whose amounts widen the table beyond the header's own words. */
const ROWS_THAT_WIDEN_THE_HEADER = 6;

/**
 * The row without the text printed in the margin beside the table (a sidebar or a line of small print
 * turned upright, "Copyright 2014"), which the reader puts on the same row as the header words.
 */
function withinTableWidth(row: LayoutRow | undefined, extent: { left: number; right: number }, headsAColumn?: (segment: LayoutSegment) => boolean): LayoutRow | undefined {
  if (!row) return undefined;
  const inside = row.segments.filter((segment) => (segment.box.x + segment.box.width > extent.left && segment.box.x < extent.right) || headsAColumn?.(segment));
  return inside.length === row.segments.length ? row : { ...row, segments: inside };
}

/**
 * A header word printed beyond the header row's width, on a line of its own under it (a scan put
 * "USt. %" a little lower than "Betrag"), still heads a column when the rows just under it print
 * numbers beneath it; the table's width comes from its amounts, and a rate column prints none.
 * Text in the margin ("Copyright 2014") has no column of numbers under it.
 */
function headsNumbersBelow(page: LayoutPage, rowIndex: number, segment: LayoutSegment): boolean {
  if (/\d/.test(segment.text.replace(/%/g, ''))) return false;
  const left = segment.box.x;
  const right = segment.box.x + segment.box.width;
  const beneath = page.rows.slice(rowIndex + 1, rowIndex + 1 + ROWS_THAT_WIDEN_THE_HEADER).filter((row) =>
    row.segments.some((below) => NUMERIC_WORD.test(below.text) && below.box.x < right && below.box.x + below.box.width > left),
  );
  return beneath.length >= 2;
}

const NUMERIC_ROLES = new Set(['line-total', 'quantity', 'unit-price', 'discount', 'tax-rate', 'position']);

function isNumericColumn(column: Column): boolean {
  return column.specification.role !== undefined ? NUMERIC_ROLES.has(column.specification.role) : column.specification.type !== 'string' && column.specification.type !== 'date';
}

/**
 * The column band a word falls in: bands meet halfway between neighbouring header spans. A text word
 * in a number column's band continues the column of the word before it in its segment ("breit" in a
 * description that runs under the quantity header, "kg" after "1.00").
 */
function placeWords(row: LayoutRow, columns: Column[]): PlacedWord[] {
  const placed: PlacedWord[] = [];
  const bandOf = (word: LayoutWord): number => {
    const centre = word.box.x + word.box.width / 2;
    for (let index = 0; index < columns.length - 1; index += 1) {
      const boundary = (columns[index]!.right + columns[index + 1]!.left) / 2;
      if (centre < boundary) return index;
    }
    return columns.length - 1;
  };
  const segments: number[] = [];
  let numberAfterText = false;
  row.segments.forEach((segment, segmentIndex) => {
    let previous: number | undefined;
    for (const word of segment.words) {
      let band = bandOf(word);
      const numeric = NUMERIC_WORD.test(word.text);
      if (!numeric && previous !== undefined && isNumericColumn(columns[band]!) && band !== previous) band = previous;
      if (numeric && previous !== undefined && band !== previous && !isNumericColumn(columns[previous]!) && isNumericColumn(columns[band]!)) numberAfterText = true;
      placed.push({ ...word, column: band });
      segments.push(segmentIndex);
      previous = band;
    }
  });
  return numberAfterText ? numbersKeptInTheirText(placed, segments, columns) : placed;
}

/**
 * A number closing a description ("Joghurt Karton 3 | 29,10") that runs into a number column's band,
 * where that column has its own number in a segment of its own: the number belongs to the text it is
 * printed with, not to the column. `segments[i]` is the segment of `placed[i]`.
 */
function numbersKeptInTheirText(placed: PlacedWord[], segments: number[], columns: Column[]): PlacedWord[] {
  return placed.map((word, index) => {
    const before = placed[index - 1];
    if (!before || segments[index - 1] !== segments[index] || before.column === word.column) return word;
    if (!NUMERIC_WORD.test(word.text) || isNumericColumn(columns[before.column]!) || !isNumericColumn(columns[word.column]!)) return word;
    const columnHasItsOwn = placed.some((other, otherIndex) => other.column === word.column && segments[otherIndex] !== segments[index] && NUMERIC_WORD.test(other.text));
    return columnHasItsOwn ? { ...word, column: before.column } : word;
  });
}

function cellText(words: PlacedWord[], column: number): string {
  return words.filter((word) => word.column === column).map((word) => word.text).join(' ').trim();
}

/**
 * A money amount in the line-total band: the row marker. A negative one is an item (a return) only
 * where the row prints a quantity or unit price; otherwise it is an allowance.
 */
function lineTotalOf(words: PlacedWord[], lineTotalColumn: number, columns: Column[]): number | undefined {
  if (columns[lineTotalColumn]?.specification.role === 'quantity') {
    const quantity = words.find((word) => word.column === lineTotalColumn && NUMERIC_WORD.test(word.text));
    return quantity ? parseLocaleNumber(quantity.text, /,\d{1,3}$/.test(quantity.text) && !/\.\d/.test(quantity.text)) : undefined;
  }
  const amounts = findAmounts(cellText(words, lineTotalColumn)).filter((amount) => !amount.isPercentage && (amount.decimals === 2 || amount.currency !== undefined));
  const last = amounts[amounts.length - 1];
  if (!last) return undefined;
  if (last.value >= 0) return last.value;
  const priced = words.some((word) => NUMERIC_WORD.test(word.text) && !word.text.endsWith('%') && ['quantity', 'unit-price'].includes(columns[word.column]?.specification.role ?? ''));
  return priced ? last.value : undefined;
}

/** A word that gives its column a value: text in a text column, a number in a number column. */
function reportsValue(word: PlacedWord, column: Column): boolean {
  if (column.specification.hidden) return false;
  return isNumericColumn(column) ? NUMERIC_WORD.test(word.text) : true;
}

/** The row's first segment is a label ("w tym:", "Razem:"): a totals or summary line, not an item. */
function opensWithLabel(row: LayoutRow): boolean {
  return /:$/.test(row.segments[0]?.text.trim() ?? '');
}

/** A row whose only numbers are percentages: a tax rate inside an item, not a totals line. */
function onlyRates(row: LayoutRow): boolean {
  const numbers = row.segments.flatMap((segment) => findAmounts(segment.text));
  return numbers.length > 0 && numbers.every((amount) => amount.isPercentage);
}

/** Numbers as the table prints them: with a decimal comma when its line totals use one. */
function parseLocaleNumber(text: string, decimalComma: boolean): number | undefined {
  const token = /[-−]?\d[\d.,'’ ]*/.exec(text)?.[0]?.trim();
  if (!token) return undefined;
  const negative = /^[-−]/.test(token);
  const digits = token.replace(/^[-−]/, '').replace(/['’ ]/g, '');
  // A separator with exactly two digits after it and no other separator is a decimal mark whatever the
  // table's convention ("4,55" among "3.90" and "2.80" is a camera's misread point): a thousands
  // separator always groups three digits.
  const twoDecimals = /^\d+[.,]\d{2}$/.test(digits);
  const normalized = twoDecimals ? digits.replace(',', '.') : decimalComma ? digits.replace(/\./g, '').replace(',', '.') : digits.replace(/,/g, '');
  if (!/^\d+(?:\.\d+)?$/.test(normalized)) return undefined;
  const value = Number(normalized);
  return negative ? -value : value;
}

function cellValue(specification: TableColumnSpecification, text: string, decimalComma: boolean): TableCellValue | undefined {
  if (text.length === 0) return undefined;
  switch (specification.type) {
    case 'string':
      return text.replace(/\s+/g, ' ');
    case 'amount': {
      const amounts = findAmounts(text).filter((amount) => !amount.isPercentage);
      const chosen = specification.role === 'line-total' ? amounts[amounts.length - 1] : amounts[0];
      if (!chosen) return undefined;
      return parseLocaleNumber(chosen.text.replace(/[^\d.,'’ -−]/g, ''), decimalComma) ?? chosen.value;
    }
    case 'number':
      return parseLocaleNumber(text, decimalComma);
    case 'integer': {
      const value = parseLocaleNumber(text, decimalComma);
      return value !== undefined && Number.isInteger(value) ? value : undefined;
    }
    case 'percent': {
      // A "VAT" column may hold the tax in money ("£480.00"): a sum of money or a figure over 100 is no rate.
      if (CURRENCY_SIGN.test(text)) return undefined;
      const rate = /(\d[\d.,]*)\s*%/.exec(text)?.[1] ?? (NUMERIC_WORD.test(text) ? text : undefined);
      const value = rate === undefined ? undefined : parseLocaleNumber(rate, decimalComma);
      return value !== undefined && Math.abs(value) <= 100 ? value : undefined;
    }
    case 'date':
      return findDates(text)[0]?.iso;
  }
}

function decimalCommaOf(drafts: RowDraft[], lineTotalColumn: number): boolean {
  let comma = 0;
  let point = 0;
  for (const draft of drafts) {
    const text = cellText(draft.words, lineTotalColumn);
    if (/\d,\d{2}(?!\d)/.test(text)) comma += 1;
    if (/\d\.\d{2}(?!\d)/.test(text)) point += 1;
  }
  return comma > point;
}

/** Mean of the words' reading confidence; 1 for text layers. */
export function meanConfidence(words: LayoutWord[]): number {
  const confidences = words.map((word) => word.confidence).filter((confidence): confidence is number => confidence !== undefined);
  return confidences.length === 0 ? 1 : confidences.reduce((sum, confidence) => sum + confidence, 0) / confidences.length;
}

/** A box kept on its page, rounded to four decimals. */
export function clamp(box: Placement): Placement {
  const round = (value: number): number => Math.round(Math.min(1, Math.max(0, value)) * 10000) / 10000;
  const x = round(box.x);
  const y = round(box.y);
  return { x, y, width: round(Math.min(1 - x, box.width)), height: round(Math.min(1 - y, box.height)) };
}

interface TableState {
  marker: 'line-total' | 'quantity';
  columns: Column[];
  drafts: RowDraft[];
  region: Placement[];
  regionPage: number;
  finished: boolean;
  /** The amount printed on the totals line that ended the table. */
  closingSum?: number;
}

function rowKey(row: LayoutRow): string {
  return `${row.pageNumber}:${row.index}`;
}

const normalizedRowTexts = new WeakMap<LayoutRow, string>();

function normalizedRowText(row: LayoutRow): string {
  let text = normalizedRowTexts.get(row);
  if (text === undefined) {
    text = normalizeForMatching(row.segments.map((segment) => segment.text).join(' ')).trim();
    normalizedRowTexts.set(row, text);
  }
  return text;
}

function startsWith(row: LayoutRow, pattern: RegExp): boolean {
  return pattern.test(normalizedRowText(row));
}

/** Reads the rows under the header (or from the top of a continuation page) until the table ends. */
function readPage(page: LayoutPage, startIndex: number, state: TableState, phrases: PhraseIndex, specifications: TableColumnSpecification[], options: TableReadingOptions, hasGeometry: boolean, underHeader: boolean): void {
  const lineTotalColumn = state.columns.findIndex((column) => column.specification.role === state.marker);
  const rowsBefore = state.drafts.length;
  let lastTableRow: LayoutRow | undefined;
  let current: RowDraft | undefined;
  let currentBottom = 0;
  let textLineAbove: TextLineAbove | undefined;
  /** The last item row read on this page: a discount line under it may be its own. */
  let lastItem: RowDraft | undefined;
  for (let index = startIndex; index < page.rows.length; index += 1) {
    const row = page.rows[index]!;
    const itemsOnPage = state.drafts.length > rowsBefore;
    // The gap is measured in the table's own line height where that is taller than the page's: OCR boxes
    // hug the ink, so a page of lowercase words gives a typical height well under the item rows' pitch.
    if (itemsOnPage && lastTableRow && hasGeometry && row.top - lastTableRow.bottom > Math.max(page.typicalLineHeight, lastTableRow.bottom - lastTableRow.top) * TABLE_END_GAP) {
      state.finished = true;
      return;
    }
    if (startsWith(row, CARRIED_FORWARD)) {
      current = undefined;
      continue;
    }
    // "Tax: 0.2%" inside an item prints a rate, not a total.
    const totals = (options.totalsRows.has(rowKey(row)) || startsWith(row, SUBTOTAL_START)) && !onlyRates(row);
    if (totals && (itemsOnPage || state.drafts.length > 0)) {
      // A section's subtotal when more items follow before the next totals line; else the table ends.
      if (startsWith(row, SUBTOTAL_START) && itemsFollow(page, index, state.columns, lineTotalColumn, options)) {
        current = undefined;
        lastTableRow = row;
        continue;
      }
      // The line that closes the table ("Positionssumme", "Subtotal") prints what its rows add up to.
      const closing = row.segments.flatMap((segment) => findAmounts(segment.text)).filter((amount) => !amount.isPercentage && amount.decimals === 2);
      const closingSum = closing[closing.length - 1];
      if (closingSum) state.closingSum = closingSum.value;
      state.finished = true;
      return;
    }
    if (totals) {
      // A totals line before any item (the items' amounts were not in the line-total band) is never an item.
      current = undefined;
      continue;
    }
    if (itemsOnPage && row.segments.length >= 3 && (headerOf(row, phrases, specifications)?.length ?? 0) >= 3) {
      // Another table (a tax summary) begins.
      state.finished = true;
      return;
    }
    const words = placeWords(row, state.columns);
    const lineTotal = lineTotalOf(words, lineTotalColumn, state.columns);
    // Something besides the line total that a row reports (a description, a quantity), and no label
    // ("w tym:", "Razem:") opening the line.
    const otherCells = words.some((word) => word.column !== lineTotalColumn && reportsValue(word, state.columns[word.column]!)) && !opensWithLabel(row);
    const allowance = lastItem && !lastItem.allowance && lastItem.pageNumber === page.pageNumber ? lineAllowanceOf(row, words, state.columns) : undefined;
    if (allowance) {
      lastItem!.allowance = allowance;
      current = undefined;
      lastTableRow = row;
      continue;
    }
    if (lineTotal !== undefined && otherCells && startsWith(row, ALLOWANCE_OR_CHARGE)) {
      current = undefined;
      lastTableRow = row;
      continue;
    }
    if (lineTotal !== undefined && otherCells && (underHeader || pricedLikeTheHeader(words, state.columns, lineTotalColumn))) {
      current = { pageNumber: page.pageNumber, words: [...nameFromTheLineAbove(words, textLineAbove, index, state.columns), ...words], continuationLines: 0 };
      textLineAbove = undefined;
      currentBottom = row.bottom;
      state.drafts.push(current);
      lastItem = current;
      if (page.pageNumber === state.regionPage) state.region.push(unitePlacements(words.map((word) => word.box)));
      lastTableRow = row;
      continue;
    }
    const descriptionWords = words.filter((word) => ['description', undefined].includes(state.columns[word.column]!.specification.role) && state.columns[word.column]!.specification.type === 'string');
    if (current && row.top - currentBottom <= page.typicalLineHeight * CONTINUATION_GAP && current.continuationLines < MAX_CONTINUATION_LINES && continues(words, state.columns)) {
      current.words.push(...descriptionWords);
      current.continuationLines += 1;
      currentBottom = row.bottom;
      lastTableRow = row;
      textLineAbove = { index, words: descriptionWords, appendedTo: current };
      continue;
    }
    textLineAbove = continues(words, state.columns) ? { index, words: descriptionWords } : undefined;
    current = undefined;
    if (itemsOnPage) lastTableRow = row;
  }
}

/**
 * A line that names a discount and prints a percentage and a negative amount, and no count or price of
 * its own: a discount of the item row above it when the percentage of that row's line total is the
 * amount (checked once the row's values are read, in finishTable). A discount of the whole table is a
 * percentage of the rows' sum, not of the last row's.
 */
function lineAllowanceOf(row: LayoutRow, words: PlacedWord[], columns: Column[]): LineAllowance | undefined {
  if (!DISCOUNT_WORD.test(normalizedRowText(row))) return undefined;
  if (words.some((word) => NUMERIC_WORD.test(word.text) && !word.text.endsWith('%') && ['quantity', 'unit-price'].includes(columns[word.column]?.specification.role ?? ''))) return undefined;
  const amounts = row.segments.flatMap((segment) => findAmounts(segment.text));
  const percents = amounts.filter((amount) => amount.isPercentage);
  const money = amounts.filter((amount) => !amount.isPercentage && amount.decimals === 2);
  const taken = money[money.length - 1];
  if (percents.length !== 1 || money.length !== 1 || !taken || taken.value >= 0) return undefined;
  const segment = row.segments.find((candidate) => findAmounts(candidate.text).some((amount) => amount.value === taken.value));
  return { percent: percents[0]!.value, amount: -taken.value, words: segment?.words ?? [] };
}

/**
 * The row's line total less the discount printed under it, when the discount's percentage of the line
 * total is its amount (to the rounding of a percentage printed with one decimal): the row's net
 * amount, as an e-invoice's line net amount is after the line's own allowances.
 */
function lineTotalLessAllowance(lineTotal: number, allowance: LineAllowance): number | undefined {
  const expected = (lineTotal * allowance.percent) / 100;
  if (Math.abs(expected - allowance.amount) > Math.max(0.005, lineTotal * 0.0005 + 0.001)) return undefined;
  return Math.round((lineTotal - allowance.amount) * 100) / 100;
}

/** A text line of the table: the row it was added to as a wrapped description, if any. */
interface TextLineAbove {
  index: number;
  words: PlacedWord[];
  appendedTo?: RowDraft;
}

/**
 * A row that prints nothing in the description column ("1 x  22.50  22.50" under "Lamb shank stew", as
 * till slips print each item on two lines) is named by the text line right above it; that line is then
 * not the wrapped description of the row before.
 */
function nameFromTheLineAbove(words: PlacedWord[], textLineAbove: TextLineAbove | undefined, index: number, columns: Column[]): PlacedWord[] {
  if (!textLineAbove || textLineAbove.index !== index - 1) return [];
  if (words.some((word) => columns[word.column]!.specification.role === 'description')) return [];
  const previous = textLineAbove.appendedTo;
  if (previous) {
    previous.words = previous.words.filter((word) => !textLineAbove.words.includes(word));
    previous.continuationLines -= 1;
  }
  return textLineAbove.words;
}

/**
 * On a page that continues the table without repeating its header, a row must fill the quantity and
 * unit price columns the header named: the page may go on with other lists (allowances, a tax summary).
 */
function pricedLikeTheHeader(words: PlacedWord[], columns: Column[], markerColumn: number): boolean {
  return columns.every((column, index) => index === markerColumn || !['quantity', 'unit-price'].includes(column.specification.role ?? '') || words.some((word) => word.column === index && NUMERIC_WORD.test(word.text)));
}

/**
 * A wrapped line of the row above: text only, no label ("Bruttopreis :"), no amount, and nothing in the
 * quantity or price columns (a bundle's part printed with its own quantity is not the name going on).
 */
function continues(words: PlacedWord[], columns: Column[]): boolean {
  if (words.length === 0) return false;
  const text = words.map((word) => word.text).join(' ');
  if (/:/.test(text) || /\d[.,]\d{2}(?!\d)/.test(text)) return false;
  if (words.some((word) => NUMERIC_WORD.test(word.text) && ['quantity', 'unit-price', 'line-total'].includes(columns[word.column]!.specification.role ?? ''))) return false;
  return words.some((word) => columns[word.column]!.specification.role === 'description');
}

function itemsFollow(page: LayoutPage, totalsIndex: number, columns: Column[], lineTotalColumn: number, options: TableReadingOptions): boolean {
  for (let next = totalsIndex + 1; next < page.rows.length; next += 1) {
    const row = page.rows[next]!;
    if (options.totalsRows.has(rowKey(row)) || startsWith(row, SUBTOTAL_START)) return false;
    const words = placeWords(row, columns);
    // A charge under the subtotal ("zzgl. Versandkosten") is added to it, not an item after it.
    if (!opensWithLabel(row) && !startsWith(row, ALLOWANCE_OR_CHARGE) && lineTotalOf(words, lineTotalColumn, columns) !== undefined && new Set(words.map((word) => word.column)).size >= 3) return true;
  }
  return false;
}

function findHeader(page: LayoutPage, from: number, phrases: PhraseIndex, specifications: TableColumnSpecification[]): { index: number; columns: Column[] } | undefined {
  for (let index = from; index < page.rows.length; index += 1) {
    const columns = headerOf(page.rows[index]!, phrases, specifications);
    if (columns) return { index, columns };
  }
  return undefined;
}

/**
 * The table of a layout, or undefined when no header names its columns and no row prints a line total.
 * Row and table confidence come from the page's arithmetic (table-arithmetic.ts).
 */
export function readTable(layout: DocumentLayout, specifications: TableColumnSpecification[], options: TableReadingOptions): ExtractedTable | undefined {
  // The column whose value starts a row: the line total, or (a delivery note's items) the quantity.
  const marker = specifications.some((column) => column.role === 'line-total') ? 'line-total' : specifications.some((column) => column.role === 'quantity') ? 'quantity' : undefined;
  if (!marker) return undefined;
  const phrases = phraseIndexOf(specifications);
  let state: TableState | undefined;
  for (const page of layout.pages) {
    const header = findHeader(page, 0, phrases, specifications);
    if (!state) {
      if (!header) continue;
      const { columns, lastHeaderIndex } = withAdjacentHeaderLines(page, header.index, header.columns, phrases, specifications);
      if (!columns.some((column) => column.specification.role === marker)) continue;
      const headerRow = page.rows[header.index]!;
      state = { marker, columns, drafts: [], region: [unitePlacements(headerRow.segments.map((segment) => segment.box))], regionPage: page.pageNumber, finished: false };
      readPage(page, lastHeaderIndex + 1, state, phrases, specifications, options, layout.hasGeometry, true);
    } else if (header) {
      const { columns, lastHeaderIndex } = withAdjacentHeaderLines(page, header.index, header.columns, phrases, specifications);
      // A header without the line-total column heads another list (a bundle's parts, a payment plan):
      // rows below it must still fill the quantity and price columns, as on a page with no header.
      const repeatsHeader = columns.some((column) => column.specification.role === marker);
      if (repeatsHeader) state.columns = columns;
      readPage(page, lastHeaderIndex + 1, state, phrases, specifications, options, layout.hasGeometry, repeatsHeader);
    } else {
      readPage(page, 0, state, phrases, specifications, options, layout.hasGeometry, false);
    }
    if (state.finished) break;
  }
  if (!state || state.drafts.length === 0) return undefined;
  return finishTable(state, specifications, options, layout.hasGeometry);
}

function finishTable(state: TableState, specifications: TableColumnSpecification[], options: TableReadingOptions, hasGeometry: boolean): ExtractedTable {
  const lineTotalColumn = state.columns.findIndex((column) => column.specification.role === state.marker);
  const decimalComma = decimalCommaOf(state.drafts, lineTotalColumn);
  const parsed = state.drafts.map((draft) => {
    const values: Record<string, TableCellValue> = {};
    const cellWords: Record<string, LayoutWord[]> = {};
    state.columns.forEach((column, index) => {
      const words = draft.words.filter((word) => word.column === index);
      const value = cellValue(column.specification, cellText(draft.words, index), decimalComma);
      if (value === undefined) return;
      values[column.specification.name] = value;
      cellWords[column.specification.name] = words;
    });
    splitQuantityAndUnit(values, cellWords, state.columns, specifications, decimalComma);
    quantityFromRate(values, cellWords, state.columns, specifications, decimalComma);
    priceThatMultipliesToTheTotal(values, cellWords, state.columns, decimalComma);
    const countLost = quantityTheCameraLost(values, cellWords, state.columns, draft);
    codeFromDescription(values, cellWords);
    const discount = netOfItsAllowance(values, cellWords, state.columns, draft);
    return { draft, values, cellWords, countLost, discount };
  });
  const arithmetic = tableArithmetic(
    parsed.map(({ values, countLost, discount }): RowArithmetic => ({
      quantity: countLost ? undefined : numberOfRole(values, state.columns, 'quantity'),
      unitPrice: numberOfRole(values, state.columns, 'unit-price'),
      discount: discount ?? numberOfRole(values, state.columns, 'discount'),
      taxRate: numberOfRole(values, state.columns, 'tax-rate'),
      lineTotal: numberOfRole(values, state.columns, 'line-total'),
    })),
    state.closingSum === undefined ? options.sums : [...options.sums, state.closingSum],
  );
  const hidden = new Set(state.columns.filter((column) => column.specification.hidden).map((column) => column.specification.name));
  const rows: TableRow[] = parsed.map(({ draft, values, cellWords, countLost }, index) => {
    const reading = meanConfidence(draft.words);
    const confidence = roundConfidence((arithmetic.rows[index] ?? 0.7) * reading);
    const cells: Record<string, TableCell> = {};
    const reported: Record<string, TableCellValue> = {};
    for (const [name, value] of Object.entries(values)) {
      if (hidden.has(name)) continue;
      reported[name] = value;
      const words = cellWords[name] ?? [];
      const cellConfidence = Math.min(confidence, confidence * meanConfidence(words) / Math.max(reading, 0.01));
      cells[name] = {
        confidence: roundConfidence(countLost === name ? Math.min(cellConfidence, CELL_CHOSEN_BY_ARITHMETIC) : cellConfidence),
        ...(hasGeometry && words.length > 0 ? { placement: clamp(unitePlacements(words.map((word) => word.box))) } : {}),
      };
    }
    return {
      values: reported,
      confidence,
      pageNumber: draft.pageNumber,
      ...(hasGeometry ? { placement: clamp(unitePlacements(draft.words.map((word) => word.box))) } : {}),
      cells,
    };
  });
  return {
    rows,
    confidence: roundConfidence(arithmetic.table * Math.min(...rows.map((row) => meanConfidence(state.drafts[rows.indexOf(row)]!.words)))),
    pageNumber: state.regionPage,
    ...(hasGeometry ? { placement: clamp(unitePlacements(state.region)) } : {}),
    arithmetic: arithmetic.evidence,
  };
}

/**
 * A row with a discount line under it that is its own: the amount becomes the line total less the
 * discount, placed over both lines. Returns the discount's percentage for the row's arithmetic.
 */
function netOfItsAllowance(values: Record<string, TableCellValue>, cellWords: Record<string, LayoutWord[]>, columns: Column[], draft: RowDraft): number | undefined {
  const lineTotalColumn = columns.find((column) => column.specification.role === 'line-total');
  const lineTotal = numberOfRole(values, columns, 'line-total');
  if (!draft.allowance || !lineTotalColumn || lineTotal === undefined || numberOfRole(values, columns, 'discount') !== undefined) return undefined;
  const net = lineTotalLessAllowance(lineTotal, draft.allowance);
  if (net === undefined) return undefined;
  const name = lineTotalColumn.specification.name;
  values[name] = net;
  cellWords[name] = [...(cellWords[name] ?? []), ...draft.allowance.words];
  return draft.allowance.percent;
}

function numberOfRole(values: Record<string, TableCellValue>, columns: Column[], role: string): number | undefined {
  const column = columns.find((candidate) => candidate.specification.role === role);
  const value = column ? values[column.specification.name] : undefined;
  return typeof value === 'number' ? value : undefined;
}

/** "20 Stk", "1.00 kg" in the quantity band: the number is the quantity, the word the unit. */
function splitQuantityAndUnit(values: Record<string, TableCellValue>, cellWords: Record<string, LayoutWord[]>, columns: Column[], specifications: TableColumnSpecification[], decimalComma: boolean): void {
  const quantityColumn = columns.find((column) => column.specification.role === 'quantity');
  const unit = specifications.find((column) => column.role === 'unit');
  if (!quantityColumn) return;
  const words = cellWords[quantityColumn.specification.name] ?? [];
  const match = /^([-−]?\d[\d.,'’]*)\s*([\p{L}²³.]+)$/u.exec(words.map((word) => word.text).join(' '));
  // "1 x" on a till: the times sign before the unit price, not a unit.
  if (!match || /^[xX×]$/.test(match[2]!)) return;
  const quantity = parseLocaleNumber(match[1]!, decimalComma);
  if (quantity === undefined) return;
  values[quantityColumn.specification.name] = quantity;
  if (unit && values[unit.name] === undefined) {
    values[unit.name] = match[2]!;
    cellWords[unit.name] = words.slice(-1);
    cellWords[quantityColumn.specification.name] = words.length > 1 ? words.slice(0, -1) : words;
  }
}

/** "Rs 1939 x 1 Night x 1 Room": a rate followed by its multipliers, each a count and maybe its unit. */
const RATE_TIMES_COUNTS = /^\D{0,4}?\s?[\d.,'’]+((?:\s*[xX×]\s*\d{1,4}(?:\s+\p{L}+\.?)?)+)$/u;

/**
 * A unit price cell that prints its multipliers ("Rs 1939 x 1 Night x 1 Room", a hotel's rate): where the
 * table has no quantity of its own, the product of the counts is the quantity, taken only where it
 * multiplies the rate to the row's line total.
 */
function quantityFromRate(values: Record<string, TableCellValue>, cellWords: Record<string, LayoutWord[]>, columns: Column[], specifications: TableColumnSpecification[], decimalComma: boolean): void {
  const priceColumn = columns.find((column) => column.specification.role === 'unit-price');
  const quantity = specifications.find((column) => column.role === 'quantity' && !column.hidden);
  if (!priceColumn || !quantity || values[quantity.name] !== undefined) return;
  const words = cellWords[priceColumn.specification.name] ?? [];
  const match = RATE_TIMES_COUNTS.exec(words.map((word) => word.text).join(' '));
  const unitPrice = numberOfRole(values, columns, 'unit-price');
  const lineTotal = numberOfRole(values, columns, 'line-total');
  if (!match || unitPrice === undefined || lineTotal === undefined) return;
  const counts = [...match[1]!.matchAll(/[xX×]\s*(\d{1,4})/g)].map((count) => parseLocaleNumber(count[1]!, decimalComma) ?? 0);
  const product = counts.reduce((accumulated, count) => accumulated * count, 1);
  if (product <= 0 || !rowAddsUp({ quantity: product, unitPrice, lineTotal })) return;
  values[quantity.name] = product;
  cellWords[quantity.name] = words.filter((word) => /^\d{1,4}$/.test(word.text) && words.indexOf(word) > 0);
}

/**
 * A row that prints two prices (before and after tax, "78.00  82.68" under "RSP  RSP", the second one in
 * the unit price band or, under a header word not read, left of the amount in the line-total band): the
 * one that multiplies with the quantity to the line total as printed, where the first one does not.
 */
function priceThatMultipliesToTheTotal(values: Record<string, TableCellValue>, cellWords: Record<string, LayoutWord[]>, columns: Column[], decimalComma: boolean): void {
  const priceColumn = columns.find((column) => column.specification.role === 'unit-price');
  const quantity = numberOfRole(values, columns, 'quantity');
  const lineTotal = numberOfRole(values, columns, 'line-total');
  const first = numberOfRole(values, columns, 'unit-price');
  if (!priceColumn || quantity === undefined || lineTotal === undefined || first === undefined) return;
  if (multipliesToTheCent(quantity, first, lineTotal)) return;
  const lineTotalColumn = columns.find((column) => column.specification.role === 'line-total');
  const beforeTheTotal = (lineTotalColumn ? cellWords[lineTotalColumn.specification.name] ?? [] : []).slice(0, -1);
  const words = [...(cellWords[priceColumn.specification.name] ?? []), ...beforeTheTotal];
  const prices = words.flatMap((word) => {
    const value = /^\D{0,3}\d[\d.,]*\d$/.test(word.text) ? parseLocaleNumber(word.text.replace(/^\D+/, ''), decimalComma) : undefined;
    return value !== undefined && value > 0 && multipliesToTheCent(quantity, value, lineTotal) ? [{ value, word }] : [];
  });
  if (prices.length !== 1) return;
  values[priceColumn.specification.name] = prices[0]!.value;
  cellWords[priceColumn.specification.name] = [prices[0]!.word];
}

/**
 * On an OCR page, a row whose quantity cell under a quantity header holds no word at all while its unit
 * price and line total are read ("Service B    $1.50   $7.50"): the camera lost the count, and the line
 * total over the unit price, where that is a whole number, is it. The arithmetic chose it, so it does not
 * vouch for the row (left out of its check). Returns the quantity column's name where it was taken.
 */
function quantityTheCameraLost(values: Record<string, TableCellValue>, cellWords: Record<string, LayoutWord[]>, columns: Column[], draft: RowDraft): string | undefined {
  const quantityColumn = columns.find((column) => column.specification.role === 'quantity');
  if (!quantityColumn || draft.words[0]?.confidence === undefined) return undefined;
  const name = quantityColumn.specification.name;
  const unitPrice = numberOfRole(values, columns, 'unit-price');
  const lineTotal = numberOfRole(values, columns, 'line-total');
  if (values[name] !== undefined || (cellWords[name]?.length ?? 0) > 0 || unitPrice === undefined || lineTotal === undefined || unitPrice <= 0) return undefined;
  if (draft.words.some((word) => columns[word.column] === quantityColumn)) return undefined;
  const quantity = Math.round(lineTotal / unitPrice);
  if (quantity < 1 || quantity > 999 || Math.abs(quantity * unitPrice - lineTotal) >= 0.005) return undefined;
  values[name] = quantity;
  cellWords[name] = [];
  return name;
}

/** "[FURN_7777] Office Chair": a code in brackets before the description is the product code. */
function codeFromDescription(values: Record<string, TableCellValue>, cellWords: Record<string, LayoutWord[]>): void {
  const description = values.description;
  if (typeof description !== 'string' || values.product_code !== undefined) return;
  const match = /^\[([^\]\s]{2,})\]\s+(.+)$/.exec(description);
  if (!match) return;
  values.product_code = match[1]!;
  values.description = match[2]!;
  const words = cellWords.description ?? [];
  cellWords.product_code = words.slice(0, 1);
  cellWords.description = words.slice(1);
}
