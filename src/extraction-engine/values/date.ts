// Calendar dates as printed: ISO "2014-05-07", numeric "05.03.2013" / "03/20/2023" / "8-9-2022",
// and written "7. Mai 2014", "02 Juillet 2015", "August 3 , 2014", "1 stycznia 2021", "Jan 1, 2022".
// Numeric day/month order is ambiguous ("03/04/2023"); callers pass the order the document's other
// evidence supports (see inferNumericDateOrder).

import { normalizeWithOffsets } from './text-normalization.ts';
import { matchesOf } from './pattern-matches.ts';
import { withOneDigitConfused } from './ocr-digit-confusions.ts';

export type NumericDateOrder = 'DMY' | 'MDY';

export interface FoundDate {
  /** YYYY-MM-DD. */
  iso: string;
  text: string;
  index: number;
  length: number;
  /** True when the day/month order had to be assumed (both parts <= 12 and different). */
  orderAssumed: boolean;
  /** 'numeric' or 'written' (month name); written dates are never ambiguous. */
  style: 'iso' | 'numeric' | 'written';
}

export interface DateContext {
  order?: NumericDateOrder;
}

// Month names and abbreviations after normalization (lowercase, no accents, ł -> l).
const MONTH_NAMES: Record<string, number> = {};
function addMonths(names: string[][]): void {
  names.forEach((variants, monthIndex) => {
    for (const variant of variants) MONTH_NAMES[variant] = monthIndex + 1;
  });
}
// English
addMonths([['january', 'jan'], ['february', 'feb'], ['march', 'mar'], ['april', 'apr'], ['may'], ['june', 'jun'], ['july', 'jul'], ['august', 'aug'], ['september', 'sep', 'sept'], ['october', 'oct'], ['november', 'nov'], ['december', 'dec']]);
// German (including Austrian Jänner)
addMonths([['januar', 'janner', 'jan'], ['februar', 'feber', 'feb'], ['marz', 'maerz', 'mrz'], ['april', 'apr'], ['mai'], ['juni'], ['juli'], ['august', 'aug'], ['september', 'sep', 'sept'], ['oktober', 'okt'], ['november', 'nov'], ['dezember', 'dez']]);
// French
addMonths([['janvier', 'janv'], ['fevrier', 'fevr', 'fev'], ['mars'], ['avril', 'avr'], ['mai'], ['juin'], ['juillet', 'juil'], ['aout'], ['septembre'], ['octobre'], ['novembre'], ['decembre']]);
// Dutch
addMonths([['januari'], ['februari'], ['maart', 'mrt'], ['april'], ['mei'], ['juni'], ['juli'], ['augustus'], ['september'], ['oktober'], ['november'], ['december']]);
// Polish: nominative, genitive (used in dates: "1 stycznia 2021") and abbreviations
addMonths([['styczen', 'stycznia', 'sty'], ['luty', 'lutego', 'lut'], ['marzec', 'marca'], ['kwiecien', 'kwietnia', 'kwi'], ['maj', 'maja'], ['czerwiec', 'czerwca', 'cze'], ['lipiec', 'lipca', 'lip'], ['sierpien', 'sierpnia', 'sie'], ['wrzesien', 'wrzesnia', 'wrz'], ['pazdziernik', 'pazdziernika', 'paz'], ['listopad', 'listopada', 'lis'], ['grudzien', 'grudnia', 'gru']]);
// Spanish
addMonths([['enero', 'ene'], ['febrero'], ['marzo'], ['abril', 'abr'], ['mayo'], ['junio'], ['julio'], ['agosto', 'ago'], ['septiembre', 'setiembre', 'set'], ['octubre'], ['noviembre'], ['diciembre', 'dic']]);
// Italian
addMonths([['gennaio', 'gen'], ['febbraio'], ['marzo'], ['aprile'], ['maggio', 'mag'], ['giugno', 'giu'], ['luglio', 'lug'], ['agosto'], ['settembre'], ['ottobre', 'ott'], ['novembre'], ['dicembre']]);

const MONTH_ALTERNATION = Object.keys(MONTH_NAMES)
  .sort((left, right) => right.length - left.length)
  .join('|');

// Patterns run over normalized text (lowercase, no accents) so month names match in any spelling.
const ISO_DATE = /(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)/g;
// Digits glued to letters are a product code's ("HC03-7 - 15"), not a date.
const NUMERIC_DATE = /(?<![\p{L}\d.,/-])(\d{1,2})\s?([./-])\s?(\d{1,2})\s?\2\s?(\d{4}|\d{2})(?![\d]|[.,/-]\d)/gu;
const DAY_MONTH_YEAR = new RegExp(
  String.raw`(?<![\d\w])(\d{1,2})(?:\.|er|st|nd|rd|th)?[\s.\-/]{0,2}(?:de\s+|of\s+)?(${MONTH_ALTERNATION})\.?(?:[\s.\-/,]{0,3}(?:de\s+)?)(\d{4}|\d{2}(?![\d]))(?!\d)`,
  'g',
);
const MONTH_DAY_YEAR = new RegExp(
  // The year in four digits, or two after an apostrophe ("Nov 27 '26", as US tills print it).
  String.raw`(?<![\w])(${MONTH_ALTERNATION})\.?\s{0,2}(\d{1,2})(?:st|nd|rd|th)?\s{0,2},?\s{0,2}(\d{4}|['’‘]\d{2})(?!\d)`,
  'g',
);

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function expandYear(year: string): number {
  const value = Number(year);
  if (year.length === 4) return value;
  return value < 70 ? 2000 + value : 1900 + value;
}

/** A calendar date as YYYY-MM-DD, or undefined when it does not exist or is implausible for a document. */
export function toIsoDate(year: number, month: number, day: number): string | undefined {
  if (year < 1900 || year > 2199 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return undefined;
  }
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Every date in the text, left to right; overlapping readings keep the earliest, longest match. */
export function findDates(text: string, context: DateContext = {}): FoundDate[] {
  // Every date form has digits, and normalization never creates any: a line without one has no date.
  if (!/\d/.test(text)) return [];
  const normalized = normalizeWithOffsets(text);
  const source = normalized.text;
  const found: FoundDate[] = [];
  const toOriginal = (start: number, length: number): { index: number; length: number; text: string } => {
    const index = normalized.originalOffsets[start] ?? 0;
    const endNormalized = start + length - 1;
    const end = (normalized.originalOffsets[endNormalized] ?? index) + 1;
    return { index, length: end - index, text: text.slice(index, end) };
  };
  const add = (start: number, length: number, iso: string | undefined, style: FoundDate['style'], orderAssumed: boolean): void => {
    if (!iso) return;
    found.push({ iso, style, orderAssumed, ...toOriginal(start, length) });
  };

  for (const match of matchesOf(ISO_DATE, source)) {
    add(match.index, match[0].length, toIsoDate(Number(match[1]), Number(match[2]), Number(match[3])), 'iso', false);
  }
  for (const match of matchesOf(NUMERIC_DATE, source)) {
    const first = Number(match[1]);
    const second = Number(match[3]);
    const year = expandYear(match[4] ?? '');
    const separator = match[2];
    // Dotted dates are day-first everywhere they are used; only slashes and dashes vary.
    const order: NumericDateOrder =
      first > 12 ? 'DMY' : second > 12 ? 'MDY' : separator === '.' ? 'DMY' : (context.order ?? 'DMY');
    const orderAssumed = first <= 12 && second <= 12 && first !== second && separator !== '.';
    const iso = order === 'DMY' ? toIsoDate(year, second, first) : toIsoDate(year, first, second);
    add(match.index, match[0].length, iso, 'numeric', orderAssumed);
  }
  for (const match of matchesOf(DAY_MONTH_YEAR, source)) {
    const month = MONTH_NAMES[match[2] ?? ''];
    if (month === undefined) continue;
    add(match.index, match[0].length, toIsoDate(expandYear(match[3] ?? ''), month, Number(match[1])), 'written', false);
  }
  for (const match of matchesOf(MONTH_DAY_YEAR, source)) {
    const month = MONTH_NAMES[match[1] ?? ''];
    if (month === undefined) continue;
    const year = match[3] ?? '';
    add(match.index, match[0].length, toIsoDate(year.length === 4 ? Number(year) : expandYear(year.slice(1)), month, Number(match[2])), 'written', false);
  }
  found.sort((left, right) => left.index - right.index || right.length - left.length);
  const kept: FoundDate[] = [];
  for (const date of found) {
    const previous = kept[kept.length - 1];
    if (previous && date.index < previous.index + previous.length) continue;
    kept.push(date);
  }
  return kept;
}

/** A whole value that is one date, as YYYY-MM-DD. */
export function parseDate(text: string, context: DateContext = {}): string | undefined {
  const trimmed = text.trim();
  const dates = findDates(trimmed, context);
  if (dates.length !== 1 || !dates[0]) return undefined;
  const rest = trimmed.slice(0, dates[0].index) + trimmed.slice(dates[0].index + dates[0].length);
  return /^[\s,.:]*$/.test(rest) ? dates[0].iso : undefined;
}

/** A datetime as ISO 8601: a date alone, or a date followed by a time ("05.03.2018 14:30"). */
export function parseDateTime(text: string, context: DateContext = {}): string | undefined {
  const trimmed = text.trim();
  const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
  if (isoDateTime.test(trimmed) && !Number.isNaN(Date.parse(trimmed))) return trimmed;
  const dates = findDates(trimmed, context);
  const date = dates[0];
  if (!date || dates.length !== 1) return undefined;
  const after = trimmed.slice(date.index + date.length);
  const time = /^[\s,T]*(?:um\s+|at\s+|a\s+|à\s+)?(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(am|pm)?/i.exec(after);
  if (!time) return /^[\s,.:]*$/.test(after) && date.index === 0 ? date.iso : undefined;
  let hours = Number(time[1]);
  const meridiem = time[4]?.toLowerCase();
  if (meridiem === 'pm' && hours < 12) hours += 12;
  if (meridiem === 'am' && hours === 12) hours = 0;
  const minutes = Number(time[2]);
  const seconds = Number(time[3] ?? '0');
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `${date.iso}T${pad(hours)}:${pad(minutes)}:${pad(seconds)}`;
}

export interface DateOrderEvidence {
  /** Every text of the document (lines), scanned for unambiguous numeric dates. */
  texts: string[];
  language?: string;
  currency?: string;
  /** ISO 3166-1 alpha-2 code of the country the page clearly names (address, tax id, legal form, phone prefix). */
  country?: string;
}

/**
 * Countries that write numeric dates month-first. Canada uses both orders, so it is left to the
 * other evidence; everywhere else writes day-first.
 */
const MONTH_FIRST_COUNTRIES = new Set(['US', 'PH', 'FM', 'MH', 'PW']);
const MIXED_ORDER_COUNTRIES = new Set(['CA']);

/**
 * Day-first or month-first for ambiguous numeric dates, from the strongest evidence available:
 * another slash/dash date in the document with a part above 12, then the country the page names,
 * then the currency and language (month-first is a US habit: USD with English text), else day-first
 * as in most of the world.
 */
export function inferNumericDateOrder(evidence: DateOrderEvidence): NumericDateOrder {
  let dayFirstVotes = 0;
  let monthFirstVotes = 0;
  for (const text of evidence.texts) {
    for (const match of matchesOf(NUMERIC_DATE, normalizeWithOffsets(text).text)) {
      if (match[2] === '.') continue;
      const first = Number(match[1]);
      const second = Number(match[3]);
      if (first > 12 && second <= 12) dayFirstVotes += 1;
      if (second > 12 && first <= 12) monthFirstVotes += 1;
    }
  }
  if (dayFirstVotes !== monthFirstVotes) return dayFirstVotes > monthFirstVotes ? 'DMY' : 'MDY';
  // The seller's country decides before the currency: US dollars are paid in many day-first countries.
  if (evidence.country && !MIXED_ORDER_COUNTRIES.has(evidence.country)) return MONTH_FIRST_COUNTRIES.has(evidence.country) ? 'MDY' : 'DMY';
  if (evidence.currency === 'USD' && (evidence.language === undefined || evidence.language === 'en')) return 'MDY';
  return 'DMY';
}

export interface DateRepairContext extends DateContext {
  /** Years of the other dates and years printed on the page: a repair that lands on one of them wins. */
  yearsOnPage?: readonly number[];
}

/**
 * Numeric dates that do not exist as read ("12-02-2618", "92/02/2018") but do with one digit that OCR
 * often confuses replaced ("12-02-2018", "02/02/2018"). Several repairs that exist are narrowed to
 * those whose year another date or year on the page prints; a date still ambiguous is left out. A
 * repair is a guess: callers report it below high confidence.
 */
export function findRepairedDates(text: string, context: DateRepairContext = {}): FoundDate[] {
  if (!/\d/.test(text)) return [];
  const normalized = normalizeWithOffsets(text);
  const source = normalized.text;
  const repaired: FoundDate[] = [];
  const pattern = new RegExp(NUMERIC_DATE.source, 'gu');
  for (const match of matchesOf(pattern, source)) {
    const [first = '', separator = '', second = '', year = ''] = [match[1], match[2], match[3], match[4]];
    if (readNumeric(first, second, year, separator, context.order) !== undefined) continue;
    const parts = [first, second, year];
    const options = new Map<string, string>();
    parts.forEach((part, partIndex) => {
      for (const changedPart of withOneDigitConfused(part)) {
        const changed = [...parts];
        changed[partIndex] = changedPart;
        const iso = readNumeric(changed[0] ?? '', changed[1] ?? '', changed[2] ?? '', separator, context.order);
        if (iso) options.set(iso, changed.join(separator));
      }
    });
    let chosen = [...options.keys()];
    if (chosen.length > 1 && context.yearsOnPage && context.yearsOnPage.length > 0) {
      const years = new Set(context.yearsOnPage);
      chosen = chosen.filter((iso) => years.has(Number(iso.slice(0, 4))));
    }
    const iso = chosen.length === 1 ? chosen[0] : undefined;
    if (!iso) continue;
    const index = normalized.originalOffsets[match.index] ?? 0;
    const end = (normalized.originalOffsets[match.index + match[0].length - 1] ?? index) + 1;
    repaired.push({ iso, text: text.slice(index, end), index, length: end - index, orderAssumed: false, style: 'numeric' });
  }
  // A till's zero-padded date with one separator lost to a gap ("05 02-18"): the other separator stands for both.
  for (const match of matchesOf(new RegExp(SEPARATOR_LOST_TO_A_GAP.source, 'gu'), source)) {
    const [first = '', second = '', separator = '', year = ''] = [match[1], match[2], match[3], match[4]];
    const iso = readNumeric(first, second, year, separator, context.order);
    if (!iso) continue;
    const index = normalized.originalOffsets[match.index] ?? 0;
    const end = (normalized.originalOffsets[match.index + match[0].length - 1] ?? index) + 1;
    repaired.push({ iso, text: text.slice(index, end), index, length: end - index, orderAssumed: false, style: 'numeric' });
  }
  // A slash read as the stroke of a 7 or a 1 ("20/0472018" for 20/04/2018): the separator that was read stands for both.
  for (const pattern of [SLASH_READ_AS_DIGIT_SECOND, SLASH_READ_AS_DIGIT_FIRST]) {
    for (const match of matchesOf(new RegExp(pattern.source, 'gu'), source)) {
      const { first = '', second = '', separator = '', year = '' } = match.groups ?? {};
      const iso = readNumeric(first, second, year, separator, context.order);
      if (!iso) continue;
      const index = normalized.originalOffsets[match.index] ?? 0;
      const end = (normalized.originalOffsets[match.index + match[0].length - 1] ?? index) + 1;
      repaired.push({ iso, text: text.slice(index, end), index, length: end - index, orderAssumed: false, style: 'numeric' });
    }
  }
  return repaired;
}

/**
 * A zero-padded date with a four-digit year whose second or first slash OCR read as a 7 or a 1 (a
 * stroke): "20/0472018", "2070/04/2018" is not one (the day would have three digits), "20704/2018" is.
 * Only with two-digit day and month and a four-digit year, so the length leaves no other reading.
 */
const SLASH_READ_AS_DIGIT_SECOND = /(?<![\d.,:/-])(?<first>\d{2})(?<separator>\/)(?<second>\d{2})[17](?<year>(?:19|20)\d{2})(?![\d.,:/-])/u;
const SLASH_READ_AS_DIGIT_FIRST = /(?<![\d.,:/-])(?<first>\d{2})[17](?<second>\d{2})(?<separator>\/)(?<year>(?:19|20)\d{2})(?![\d.,:/-])/u;

/** Two two-digit parts and a year, the first separator a gap: "05 02-18", "17 03/2018". */
const SEPARATOR_LOST_TO_A_GAP = /(?<![\d.,:/-])(\d{2}) (\d{2})([-/])(\d{4}|\d{2})(?![\d.,:/-])/u;

/** A numeric date read as findDates reads it, or undefined when it does not exist. */
function readNumeric(firstText: string, secondText: string, yearText: string, separator: string, contextOrder: NumericDateOrder | undefined): string | undefined {
  const first = Number(firstText);
  const second = Number(secondText);
  const year = expandYear(yearText);
  const order: NumericDateOrder = first > 12 ? 'DMY' : second > 12 ? 'MDY' : separator === '.' ? 'DMY' : (contextOrder ?? 'DMY');
  return order === 'DMY' ? toIsoDate(year, second, first) : toIsoDate(year, first, second);
}

/** Years of the dates that exist as read, as evidence for repairs. */
export function yearsIn(texts: readonly string[]): number[] {
  const years: number[] = [];
  for (const text of texts) {
    for (const date of findDates(text)) years.push(Number(date.iso.slice(0, 4)));
  }
  return years;
}
