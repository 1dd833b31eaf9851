// Monetary amounts as printed on invoices across Europe, the US and India: "1.234,56", "1,234.56",
// "1 234,56", "1'234.50", "-8,79", "(12.00)", "12.00-", "€ 4.904,94", "$4.11", "Rs 1939", "56,02 €".

import { findCurrencyMentions, ISO_CURRENCY_CODES, type CurrencyContext } from './currency.ts';

export interface FoundAmount {
  value: number;
  /** ISO code of a currency symbol or code printed right next to the number. */
  currency?: string;
  /** The matched text, including sign and adjacent currency. */
  text: string;
  index: number;
  length: number;
  /** Number of decimals printed (0 for "1939"): whole numbers are weaker amount evidence. */
  decimals: number;
  /** Followed by "%": a rate, not an amount. */
  isPercentage: boolean;
}

// Digits with optional grouping. Spaces only group inside one number when groups are exactly three
// digits and a currency sign is attached (see findAmounts); otherwise a space is a column gap.
// The third form is a till amount whose decimal point OCR lost ("RM 64 13"), read only beside a currency sign.
const SPACED_NUMBER_BODY = String.raw`\d{1,3}(?:[.,'’\u00a0\u202f ]\d{3})+(?:[.,]\d{1,4})?|\d{1,6} \d{2}(?![\d.,])|\d+(?:[.,]\d{1,4})?`;
const LOST_DECIMAL_POINT = /^(\d{1,6}) (\d{2})$/;
const COMPACT_NUMBER_BODY = String.raw`\d{1,3}(?:[.,'’]\d{3})+(?:[.,]\d{1,4})?|\d+(?:[.,]\d{1,4})?`;
const CURRENCY_CODES = [...ISO_CURRENCY_CODES].join('|');
const CURRENCY_PREFIX = String.raw`(?:[€$£¥￥₹₨₽₺₩₪₦]|US\$|Mex\$|[A-Z]{1,2}\$|Rs\.?|RM|R[Pp]\.?|S\/\.?|(?:${CURRENCY_CODES})(?![A-Za-z])|zł|kr|Fr\.)`;
// A sign followed by a digit belongs to the next amount ("$ 112.90 $ 16.94"), not to this one.
const CURRENCY_SUFFIX = String.raw`(?:(?:[€$£¥₹₽₺₩₪]|(?:${CURRENCY_CODES})(?![A-Za-z])|zł|kr\.?|Kč)(?!\s?\d))`;

function amountPattern(numberBody: string, flags: string): RegExp {
  return new RegExp(
    // Not followed by another separator and digit: "21.05.14" is a date, "1.2.3" a version. Nor
    // joined to digits by a hyphen: "1-300-22-2623" is a phone number, "10-04-2018" a date.
    String.raw`(?<![\w.,]|\d[-–])(?<open>\()?(?<leadingSign>[-−–+])?\s?(?:(?<prefix>${CURRENCY_PREFIX})\s?)?(?<innerSign>[-−–])?(?<number>${numberBody})(?![\d]|[.,]\d|[-–]\d)(?<trailingSign>-(?![\d\w]))?(?:\s?(?<suffix>${CURRENCY_SUFFIX}))?(?<close>\))?(?<percent>\s?%)?`,
    flags,
  );
}

const SPACED_AMOUNT = amountPattern(SPACED_NUMBER_BODY, 'gu');
const COMPACT_AMOUNT_AT = amountPattern(COMPACT_NUMBER_BODY, 'yu');

interface NumberReading {
  value: number;
  decimals: number;
}

/** Reads the digits-and-separators body; undefined when the separators contradict each other. */
export function readNumberBody(body: string, allowSpaceGrouping: boolean): NumberReading | undefined {
  const compact = body.replace(/[\u00a0\u202f]/g, ' ');
  if (!allowSpaceGrouping && compact.includes(' ')) return undefined;
  const withoutGrouping = compact.replace(/['’ ]/g, '');
  const lastDot = withoutGrouping.lastIndexOf('.');
  const lastComma = withoutGrouping.lastIndexOf(',');
  let decimalSeparator: '.' | ',' | undefined;
  if (lastDot >= 0 && lastComma >= 0) {
    decimalSeparator = lastDot > lastComma ? '.' : ',';
  } else if (lastDot >= 0 || lastComma >= 0) {
    const separator = lastDot >= 0 ? '.' : ',';
    const occurrences = withoutGrouping.split(separator).length - 1;
    const digitsAfter = withoutGrouping.length - withoutGrouping.lastIndexOf(separator) - 1;
    const leading = withoutGrouping.slice(0, withoutGrouping.indexOf(separator));
    // One separator followed by exactly three digits is a thousands separator ("1.000", "2,500"),
    // unless the integer part is 0 ("0,750" is a quantity-like decimal).
    const isGrouping = occurrences > 1 || (digitsAfter === 3 && leading !== '0' && compact.length > 4);
    decimalSeparator = isGrouping ? undefined : separator;
    if (isGrouping && digitsAfter !== 3) return undefined;
  }
  let integerPart = withoutGrouping;
  let fractionPart = '';
  if (decimalSeparator) {
    const at = withoutGrouping.lastIndexOf(decimalSeparator);
    integerPart = withoutGrouping.slice(0, at);
    fractionPart = withoutGrouping.slice(at + 1);
  }
  const groupSeparator = decimalSeparator === ',' ? '.' : decimalSeparator === '.' ? ',' : undefined;
  if (groupSeparator === undefined) {
    integerPart = integerPart.replace(/[.,]/g, '');
  } else {
    if (integerPart.includes(decimalSeparator as string)) return undefined;
    const groups = integerPart.split(groupSeparator);
    if (groups.length > 1 && groups.slice(1).some((group) => group.length !== 3)) return undefined;
    integerPart = groups.join('');
  }
  if (!/^\d+$/.test(integerPart) || (fractionPart !== '' && !/^\d+$/.test(fractionPart))) return undefined;
  const value = Number(`${integerPart}.${fractionPart || '0'}`);
  return Number.isFinite(value) ? { value, decimals: fractionPart.length } : undefined;
}

// Routing, currency evidence, label candidates and line items all read the amounts of the same lines
// of a document; the result depends only on the text and the language. Remembered while one document
// is extracted (see rememberingAmounts); entries are frozen because callers share them.
let amountsByLine: Map<string, FoundAmount[]> | undefined;

/** Runs `work` with the amounts of each line read once, then forgets them. */
export function rememberingAmounts<T>(work: () => T): T {
  const outer = amountsByLine;
  amountsByLine = outer ?? new Map();
  try {
    return work();
  } finally {
    amountsByLine = outer;
  }
}

/** Every amount-looking number in the text, left to right. */
export function findAmounts(text: string, context: CurrencyContext = {}): FoundAmount[] {
  if (!amountsByLine) return readAmounts(text, context);
  const key = `${context.language ?? ''}\u0000${text}`;
  let found = amountsByLine.get(key);
  if (!found) {
    found = Object.freeze(readAmounts(text, context).map((amount) => Object.freeze(amount))) as FoundAmount[];
    amountsByLine.set(key, found);
  }
  return found;
}

/**
 * OCR reads a zero right after a currency sign as the letter O ("RM O 02", "RM O.50"): no word is a
 * lone O between a sign and two digits of cents.
 */
const LETTER_O_FOR_ZERO = new RegExp(String.raw`(?<=(?<![\p{L}\d])${CURRENCY_PREFIX}\s?)[OoÖ](?=(?:[.,]\s?|\s)\d{2}(?!\d))`, 'gu');

/**
 * OCR reads a decimal point on a till slip with a gap after it ("RM152. 00"). Beside a currency sign,
 * a separator, one space and two digits that end the token are the cents: the space moves behind
 * them, so the text keeps its length and every index found stays that of the given text.
 */
const SPACE_AFTER_DECIMAL_POINT = new RegExp(String.raw`(?<=(?<![\p{L}\d])${CURRENCY_PREFIX}\s?\d{1,6})([.,]) (\d{2})(?![\d.,])(?=\s|$)`, 'gu');

/**
 * A till amount with a gap beside its decimal point, OCR of spaced or double-height print: alone in
 * its column ("-50. 00", a column holds one value), or ending its line after a label with the point
 * standing free between the digits ("Grand Total 39 . 00"); the two digits are its cents. Not where
 * another digit precedes it on the line ("2 x 3 . 50"), nor after a label with the gap on one side
 * only ("Qty 12. 50" may be two numbers).
 */
const GAPPED_AMOUNT_ALONE = /^(\s*)([-−–]?\d{1,6})( ?)([.,])( )(\d{2})(\s*)$/u;
const GAPPED_AMOUNT_AFTER_LABEL = /^([^\d]*?[\s:])([-−–]?\d{1,6})( )([.,])( )(\d{2})(\s*)$/u;

/**
 * What the two repairs above need to find, without the currency sign they look behind for: a line
 * without it (almost every line) is left as it is without trying their long lookbehinds at each position.
 */
const LETTER_O_BEFORE_CENTS = /[OoÖ](?:[.,]\s?|\s)\d{2}/u;
const GAP_AFTER_DECIMAL_POINT = /[.,] \d{2}/u;

function readAmounts(given: string, context: CurrencyContext): FoundAmount[] {
  // OCR reads a gap on a till slip as "_" ("RM_34.80"); no amount holds one, so it separates like a
  // space (same length: the indices found stay those of the given text).
  const withoutUnderscores = given.includes('_') ? given.replace(/_/gu, ' ') : given;
  const withZeros = LETTER_O_BEFORE_CENTS.test(withoutUnderscores) ? withoutUnderscores.replace(LETTER_O_FOR_ZERO, '0') : withoutUnderscores;
  // Where a gap after a decimal point was closed: an amount over it spans one more character of the given text.
  const closedGaps: number[] = [];
  const withGapsAfterSigns = GAP_AFTER_DECIMAL_POINT.test(withZeros)
    ? withZeros.replace(SPACE_AFTER_DECIMAL_POINT, (_match, separator: string, cents: string, offset: number) => {
        closedGaps.push(offset + 1);
        return `${separator}${cents} `;
      })
    : withZeros;
  const gapped = GAPPED_AMOUNT_ALONE.exec(withGapsAfterSigns) ?? GAPPED_AMOUNT_AFTER_LABEL.exec(withGapsAfterSigns);
  let text = withGapsAfterSigns;
  if (gapped) {
    const [, before = '', integer = '', gapBefore = '', separator = '', gapAfter = '', cents = '', after = ''] = gapped;
    // The gaps move behind the cents: the text keeps its length, and each closed gap lengthens the amount over it.
    if (gapBefore) closedGaps.push(before.length + integer.length);
    closedGaps.push(before.length + integer.length + gapBefore.length + 1);
    text = `${before}${integer}${separator}${cents}${gapBefore}${gapAfter}${after}`;
  }
  const found: FoundAmount[] = [];
  // Every amount has a digit; the patterns below are costly to try at each position of a line without one.
  if (!/\d/.test(text)) return found;
  // The module's own patterns, from the start of this text (nothing read here reads amounts in turn).
  const spaced = SPACED_AMOUNT;
  const compact = COMPACT_AMOUNT_AT;
  spaced.lastIndex = 0;
  compact.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = spaced.exec(text)) !== null) {
    let groups = match.groups ?? {};
    let reading: NumberReading | undefined;
    if (/[\s\u00a0\u202f]/.test(groups.number ?? '')) {
      // A number alone in its column ("Total TTC   1 218,00") may group with spaces too.
      const attachedCurrency = Boolean(groups.prefix || groups.suffix) || match[0].trim() === text.replace(/^[\s:=*]+|[\s:=*]+$/g, '');
      const lostDecimalPoint = LOST_DECIMAL_POINT.exec(groups.number ?? '');
      if (lostDecimalPoint) {
        // Two digits after a space are no thousands group: beside a sign, or alone in their column
        // ("Total   41 50": a column holds one value), they are the cents.
        reading = attachedCurrency ? { value: Number(`${lostDecimalPoint[1]}.${lostDecimalPoint[2]}`), decimals: 2 } : undefined;
      } else {
        reading = attachedCurrency ? readNumberBody(groups.number ?? '', true) : undefined;
      }
      if (!reading) {
        compact.lastIndex = match.index;
        const compactMatch = compact.exec(text);
        if (!compactMatch) continue;
        match = compactMatch;
        groups = compactMatch.groups ?? {};
        spaced.lastIndex = compactMatch.index + compactMatch[0].length;
        reading = readNumberBody(groups.number ?? '', false);
      }
    } else {
      reading = readNumberBody(groups.number ?? '', false);
    }
    if (!reading) continue;
    // Whole numbers padded with zeros are an identifier's digits ("GST ID: 00038 1399040", a till's
    // "000945"), never money; a padded amount with cents ("000123.45", a cheque's) still is one.
    if (reading.decimals === 0 && /^0{2,}\d/.test((groups.number ?? '').trim())) continue;
    const negative =
      Boolean(groups.open && groups.close) ||
      /[-−–]/.test(groups.leadingSign ?? '') ||
      Boolean(groups.innerSign) ||
      Boolean(groups.trailingSign);
    const prefixCurrency = groups.prefix ? currencyOf(groups.prefix, context) : undefined;
    const suffixCurrency = groups.suffix ? currencyOf(groups.suffix, context) : undefined;
    const currency = prefixCurrency ?? suffixCurrency;
    const matchedText = match[0];
    const leadingSpace = matchedText.length - matchedText.trimStart().length;
    const index = match.index + leadingSpace;
    const gapsClosed = closedGaps.filter((gap) => gap > index && gap < index + matchedText.trim().length).length;
    const closedGap = gapsClosed > 0;
    const length = matchedText.trim().length + gapsClosed;
    found.push({
      value: negative ? -reading.value : reading.value,
      ...(currency ? { currency } : {}),
      text: closedGap ? given.slice(index, index + length) : matchedText.trim(),
      index,
      length,
      decimals: reading.decimals,
      isPercentage: Boolean(groups.percent),
    });
  }
  return found;
}

function currencyOf(symbolOrCode: string, context: CurrencyContext): string | undefined {
  return findCurrencyMentions(symbolOrCode.trim(), context)[0]?.code;
}

/** A whole value that is one amount ("€ 1.234,56", "-8,79", "1 234,56 zł") as a number. */
export function parseAmount(text: string, context: CurrencyContext = {}): number | undefined {
  const trimmed = text.trim();
  const amounts = findAmounts(trimmed, context).filter((amount) => !amount.isPercentage);
  if (amounts.length !== 1) return undefined;
  const [amount] = amounts;
  if (!amount) return undefined;
  const rest = (trimmed.slice(0, amount.index) + trimmed.slice(amount.index + amount.length)).replace(/[\s:=*]/g, '');
  return rest.length === 0 ? amount.value : undefined;
}
