// One entry point per field type: find the value at the start of the text that follows a label,
// and check a whole value (embedded e-invoice values, user corrections) against its type.

import { findAmounts, type FoundAmount } from './amount.ts';
import { parseBoolean } from './boolean.ts';
import { findCurrencyMentions, parseCurrency } from './currency.ts';
import { findDates, findRepairedDates, parseDate, parseDateTime, type NumericDateOrder } from './date.ts';
import { findEmail, parseEmail } from './email.ts';
import { parseEnum } from './enum.ts';
import { findIbans, parseIban } from './iban.ts';
import { findIdentifierAtStart } from './identifier.ts';
import { parseInteger, parseNumber } from './number.ts';
import { cleanPartyName } from './party-name.ts';
import { parsePhone } from './phone.ts';
import { findVatIds, parseVatId } from './vat-id.ts';
import { matchesOf } from './pattern-matches.ts';

export const FIELD_TYPES = [
  'string', 'number', 'amount', 'integer', 'date', 'datetime', 'currency', 'boolean', 'email', 'phone', 'iban', 'enum', 'table',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** How a `string` field's value looks, which decides where it ends in the text after a label. */
export type StringShape = 'identifier' | 'party-name' | 'vat-id' | 'text';

export type FieldValue = string | number | boolean;

export interface ValueContext {
  dateOrder?: NumericDateOrder;
  language?: string;
  allowedValues?: readonly string[];
  /** Compiled configured patterns: the value is the first capture group, or the whole match. */
  patterns?: readonly RegExp[];
  shape?: StringShape;
  /** The text was read by OCR, which splits digit runs ("471 1 02"). */
  fromOcr?: boolean;
  dateInRange?: DateInRange;
  /** Years of the dates that exist as read on the page: evidence for repairing a misread date. */
  yearsOnPage?: readonly number[];
}

/** Quality and confidence ceiling of a date that exists only with one misread digit replaced. */
const REPAIRED_DATE_QUALITY = 0.6;
export const REPAIRED_DATE_CONFIDENCE_CEILING = 0.8;

/** A delivery or service period printed as a range was complete on its last day. */
export type DateInRange = 'start' | 'end';

const RANGE_SEPARATOR = /^\s*(?:-|–|—|bis|to|till|until|through|au|tot|t\/m|do|al|a|hasta)\s*$/i;

export interface FoundValue {
  value: FieldValue;
  /** Offset and length of the value's text in the searched text. */
  index: number;
  length: number;
  /** How typical the printed form is for the type, in [0, 1]. */
  quality: number;
  /** Highest confidence the value may be reported with (a value repaired from an OCR misreading). */
  confidenceCeiling?: number;
}

const MAX_TEXT_VALUE_LENGTH = 120;

/** Amounts of each column (runs separated by 3+ spaces) on their own, so a lone "1 218,00" stays whole. */
function findAmountsPerColumn(text: string, context: ValueContext): FoundAmount[] {
  const found: FoundAmount[] = [];
  for (const column of matchesOf(/\S+(?:\s{1,2}\S+)*/g, text)) {
    for (const amount of findAmounts(column[0], context)) found.push({ ...amount, index: amount.index + column.index });
  }
  return found;
}

function firstPatternMatch(text: string, patterns: readonly RegExp[]): FoundValue | undefined {
  for (const pattern of patterns) {
    const match = new RegExp(pattern.source, pattern.flags.replace('g', '')).exec(text);
    if (!match) continue;
    const value = match[1] ?? match[0];
    const index = match.index + Math.max(0, match[0].indexOf(value));
    return { value: value.trim(), index, length: value.length, quality: 1 };
  }
  return undefined;
}

/**
 * Candidate values of the type in the text that follows a label, best first. Amounts return every
 * amount on the rest of the line (a table row's total is often the last one); other types return
 * the first value.
 */
export function findValuesAfterLabel(type: FieldType, text: string, context: ValueContext = {}): FoundValue[] {
  if (context.patterns && context.patterns.length > 0 && (type === 'string' || type === 'enum')) {
    const matched = firstPatternMatch(text, context.patterns);
    if (!matched) return [];
    if (type === 'enum') {
      const value = parseEnum(String(matched.value), context.allowedValues ?? []);
      return value === undefined ? [] : [{ ...matched, value }];
    }
    return [matched];
  }
  switch (type) {
    case 'amount':
    case 'number': {
      // Long whole numbers after an amount label are account or reference numbers, not money.
      const amounts = findAmountsPerColumn(text, context).filter((amount) => !amount.isPercentage && !(amount.decimals === 0 && Math.abs(amount.value) >= 1e7));
      return amounts.map((amount, position) => ({
        value: amount.value,
        index: amount.index,
        length: amount.length,
        // Printed cents or an attached currency make a number look like money.
        quality:
          (amount.decimals === 2 || amount.currency ? 1 : amount.decimals === 0 ? 0.7 : 0.8) *
          (position === 0 || position === amounts.length - 1 ? 1 : 0.85),
      }));
    }
    case 'integer': {
      const match = /^[\s:#=]*(-?\d[\d.,' ]*)/.exec(text);
      const value = match ? parseInteger(match[1]?.trim() ?? '') : undefined;
      return value === undefined ? [] : [{ value, index: text.indexOf(match?.[1] ?? ''), length: (match?.[1] ?? '').trim().length, quality: 1 }];
    }
    case 'date': {
      const [first, second] = findDates(text, { order: context.dateOrder ?? 'DMY' });
      const date = context.dateInRange === 'end' && first && second && RANGE_SEPARATOR.test(text.slice(first.index + first.length, second.index)) ? second : first;
      if (date) return [{ value: date.iso, index: date.index, length: date.length, quality: date.orderAssumed ? 0.8 : 1 }];
      // OCR misreads digits ("12-02-2618"); printed text does not, so only OCR text is repaired.
      const repaired = context.fromOcr ? findRepairedDates(text, { order: context.dateOrder ?? 'DMY', ...(context.yearsOnPage ? { yearsOnPage: context.yearsOnPage } : {}) })[0] : undefined;
      if (!repaired) return [];
      return [{ value: repaired.iso, index: repaired.index, length: repaired.length, quality: REPAIRED_DATE_QUALITY, confidenceCeiling: REPAIRED_DATE_CONFIDENCE_CEILING }];
    }
    case 'datetime': {
      const date = findDates(text, { order: context.dateOrder ?? 'DMY' })[0];
      if (!date) return [];
      const withTime = parseDateTime(text.slice(date.index), { order: context.dateOrder ?? 'DMY' });
      return [{ value: withTime ?? date.iso, index: date.index, length: date.length, quality: withTime ? 1 : 0.8 }];
    }
    case 'currency': {
      const mention = findCurrencyMentions(text, context)[0];
      return mention ? [{ value: mention.code, index: mention.index, length: mention.length, quality: mention.unambiguous ? 1 : 0.8 }] : [];
    }
    case 'iban': {
      // Even right after the label, only a valid IBAN: an IBAN-shaped number that fails mod 97 is not one.
      const iban = findIbans(text)[0];
      return iban ? [{ value: iban.iban, index: iban.index, length: iban.length, quality: 1 }] : [];
    }
    case 'email': {
      const email = findEmail(text);
      return email ? [{ value: email.email, index: email.index, length: email.length, quality: 1 }] : [];
    }
    case 'phone': {
      const match = /[+(]?\d[\d\s().\-/]{5,}\d/.exec(text);
      const phone = match ? parsePhone(match[0], context) : undefined;
      return phone && match ? [{ value: phone, index: match.index, length: match[0].length, quality: phone.startsWith('+') ? 1 : 0.8 }] : [];
    }
    case 'boolean': {
      const word = /^[\s:]*(\S+)/.exec(text);
      const value = word ? parseBoolean(word[1] ?? '') : undefined;
      return value === undefined || !word ? [] : [{ value, index: text.indexOf(word[1] ?? ''), length: (word[1] ?? '').length, quality: 1 }];
    }
    case 'enum': {
      const value = parseEnum(text, context.allowedValues ?? []);
      return value === undefined ? [] : [{ value, index: 0, length: text.length, quality: 0.9 }];
    }
    case 'string':
      return findStringAfterLabel(text, context.shape ?? 'text', context);
    case 'table':
      // Tables are read from their header and rows (fields/table-rows.ts), never after a label.
      return [];
  }
}

function findStringAfterLabel(text: string, shape: StringShape, context: ValueContext): FoundValue[] {
  switch (shape) {
    case 'identifier': {
      const identifier = findIdentifierAtStart(text, { joinSplitDigits: context.fromOcr === true });
      return identifier ? [{ value: identifier.identifier, index: identifier.index, length: identifier.length, quality: identifier.quality }] : [];
    }
    case 'vat-id': {
      const prefixed = findVatIds(text)[0];
      if (prefixed) return [{ value: prefixed.vatId, index: prefixed.index, length: prefixed.length, quality: 1 }];
      const bare = /^[\s:#.]*([A-Z]?(?:\d[\s.\-]?){7,12}[A-Z]?)(?![A-Za-z0-9])/.exec(text);
      const vatId = bare?.[1] ? parseVatId(bare[1].trim(), { allowBareNumber: true }) : undefined;
      return vatId && bare?.[1] ? [{ value: vatId, index: text.indexOf(bare[1]), length: bare[1].trim().length, quality: 0.85 }] : [];
    }
    case 'party-name': {
      const start = text.length - text.replace(/^[\s:]+/, '').length;
      const name = cleanPartyName(text.slice(start));
      if (!name) return [];
      const index = text.indexOf(name, start);
      return [{ value: name, index: index >= 0 ? index : start, length: name.length, quality: 0.9 }];
    }
    case 'text': {
      const start = text.length - text.replace(/^[\s:#\-–]+/, '').length;
      const value = text.slice(start).trim();
      if (value.length === 0 || value.length > MAX_TEXT_VALUE_LENGTH) return [];
      return [{ value, index: start, length: value.length, quality: 0.8 }];
    }
  }
}

/** A whole value checked and normalized for its type; undefined when it is not one. */
export function parseValueOfType(type: FieldType, raw: FieldValue, context: ValueContext = {}): FieldValue | undefined {
  if (typeof raw === 'number') {
    if (type === 'amount' || type === 'number') return Number.isFinite(raw) ? raw : undefined;
    if (type === 'integer') return Number.isSafeInteger(raw) ? raw : undefined;
    return parseValueOfType(type, String(raw), context);
  }
  if (typeof raw === 'boolean') return type === 'boolean' ? raw : undefined;
  const text = raw.trim();
  switch (type) {
    case 'string':
      return text.length > 0 ? text : undefined;
    case 'amount':
      return findAmounts(text, context).length === 1 ? findAmounts(text, context)[0]?.value : parseNumber(text);
    case 'number':
      return parseNumber(text);
    case 'integer':
      return parseInteger(text);
    case 'date':
      return parseDate(text, { order: context.dateOrder ?? 'DMY' });
    case 'datetime':
      return parseDateTime(text, { order: context.dateOrder ?? 'DMY' });
    case 'currency':
      return parseCurrency(text, context);
    case 'boolean':
      return parseBoolean(text);
    case 'email':
      return parseEmail(text);
    case 'phone':
      return parsePhone(text, context);
    case 'iban':
      return parseIban(text);
    case 'enum':
      return parseEnum(text, context.allowedValues ?? []);
    case 'table':
      return undefined;
  }
}
