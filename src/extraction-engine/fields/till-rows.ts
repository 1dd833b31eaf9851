// Item lines printed without a header row (till receipts, short headerless tables): the block of lines
// just above the first totals line whose last column prints a money amount. A line gives its quantity
// and unit price where it prints them ("2 x 3.50  7.00", "1 Saba shioyaki  26.00"), and a line of
// quantity and price under a description line ("CHOPPING BOARD" / "8970669  1 X 19.00  19.00") takes its
// description from the text lines above it. Nothing but the page's arithmetic vouches for such rows, so
// their confidence comes from it alone (table-arithmetic.ts): a row that does not add up stays low.

import { isUnambiguousCurrencyCode } from '../values/currency.ts';
import { withOneDigitConfused } from '../values/ocr-digit-confusions.ts';
import { normalizeForMatching } from '../values/text-normalization.ts';
import { roundConfidence } from './candidate-selection.ts';
import { unitePlacements, type DocumentLayout, type LayoutPage, type LayoutRow, type LayoutWord } from './document-layout.ts';
import { CELL_CHOSEN_BY_ARITHMETIC, multipliesToTheCent, rowAddsUp, tableArithmetic } from './table-arithmetic.ts';
import { clamp, meanConfidence, readsAsTableHeader, type TableReadingOptions } from './table-rows.ts';
import type { ExtractedTable, TableCell, TableCellValue, TableColumnSpecification, TableRow } from './table-specification.ts';

/**
 * A money amount as a till prints it, maybe with its tax code glued on ("71.00(S)", "5.90SR", and
 * "14,995R" where the camera read the S of "SR" as a 5), after a currency whose M a camera reads as H or
 * N, or whose R as E or K ("RH1.29", "EM134.80").
 */
const MONEY = /^(?:R[MHN]|[EK]M|\$|€|£)?(-?\d{1,6}[.,]\d{2})(?:\(?[A-Za-z*]{1,2}\)?|5R)?$/;
/** A ringgit amount whose leading 1 the camera read as a letter ("RMi1.90" for RM11.90). */
const MONEY_WITH_ITS_ONE_READ_AS_A_LETTER = /^R[MHN][iIl|](\d{0,5}[.,]\d{2})(?:\(?[A-Za-z*]{1,2}\)?)?$/;
/** An amount without its point, or with a colon for it ("636", "8:70.", "1160SR"). */
const AMOUNT_WITH_POINT_MISREAD = /^(\d{1,6})[:;]?(\d{2})\.?(?:\(?[A-Za-z*]{1,2}\)?|5R)?$/;
/** The two halves of an amount a camera split at its point ("38." "00", "21." "105R"). */
const AMOUNT_BEFORE_POINT = /^(?:R[MHN]|[EK]M|\$)?\d{1,6}[.,]$/;
const CENTS_AFTER_POINT = /^\d{2}(?:\(?[A-Za-z*]{1,2}\)?|5R)?$/;
/** A tax code or mark after the amount or a description ("SR", "S", "(Z)", "*S", and "*5" as a camera reads it). */
const TAX_CODE = /^[*(]?[A-Za-z*]{1,2}[)]?$|^[*#%][A-Za-z0-9]$|^[*#€£]$/;
/** A tax code of one letter after the amount that the camera read as a digit (Z as 2, S as 5). */
const TAX_CODE_READ_AS_DIGIT = /^[25]$/;
/**
 * "1 x 19.00", "2pc @ 3,50", "3 * RM 2.50", "1X 8.02", "3 X 2.9000" (a unit price to four places) before
 * the amount, and "1 X.12.50" where a speck beside the sign was read as a point.
 */
const QUANTITY_TIMES_PRICE = /(?:^|\s)(\d{1,3}(?:[.,]\d{1,3})?)\s*(?:[A-Za-z]{1,4}\s*)?[xX×*@][.,]?\s*(?:RM\s*|\$\s*)?(\d{1,6}[.,]\d{2}(?:\d{2})?)$/;
/** "1 2.50" before the amount, with no sign between: a quantity and a price only where they multiply to it. */
const QUANTITY_AND_PRICE = /(?:^|\s)(\d{1,3})\s+(\d{1,6}[.,]\d{2})$/;
/** A currency sign written as a word of its own before an amount ("HK$ 28.00"); codes are asked of values/currency.ts. */
const CURRENCY_SIGN_WORD = /^(?:[A-Z]{1,3}\$|\$|RM|€|£|¥|Rp\.?|R\$|S\/\.?)$/;
/** A line opening with a count times a price ("1 * RM 2.83", "2 x $4.50", "3 @ 1.20"), not a count times a name ("2 x Brezel"). */
const COUNT_TIMES_PRICE_FIRST = /^\d{1,4}\s*[xX×*@]\s*(?:R[MH]\s*|\$\s*|€\s*|£\s*)?\d{1,6}[.,]\d{2}(?!\d)/;
/** "@2 X RM 2.20" on a line of its own under an item: its quantity and unit price. */
const QUANTITY_LINE = /^[^\d\s]?(\d{1,4})\s*[xX×*]\s*(?:R[MH]\s*|\$\s*)?(\d{1,6}[.,]\d{2})$/;
/** A closing line whose amount is the items' sum. */
const CLOSING_SUM = /\b(?:sub ?total|total|summe|gesamt|totaal|razem)\b/;
/**
 * Lines that close the item block on a till receipt without being a totals label; "Items" only with
 * its count ("Items 40"), not an item's own note ("Item promo 69.99 -5.00"); a subtotal whose label the
 * camera cut short ("SUB TO). 7.00").
 */
const TILL_SUMMARY = /^(?:\d+\s+)?(?:sub-?\s?total|sub\s?to\b|total|item count|items? count|no\.? of items?|item\s?\(?s\)?|items?(?=\s?:?\s?\d)|total qty|qty count|rounding|cash|change|tax summary|gst summary)\b/;
/** Lines that are not items although they print an amount. */
const NOT_AN_ITEM = /^(?:discount|rabatt|rounding|service charge|service chrg|svc|deposit|change|cash|tips?|tender)\b/;
/**
 * Words of the totals and payment block, anywhere on a line: it is not an item, and no item is above
 * it within the block. A summary of charges ("AWS Service Charges $4.11", "Credits $0.00") is not items.
 */
const TOTALS_WORD = /\b(?:total|sub ?total|subtotal|tendered|change|cash|credit|debit|disc|discount|rounding|round adj|payment|paid|balance|gst|vat|tax|charges?|credits?|gesamt|mwst|ust|totaal|razem|suma)\b|\p{L}*(?:summe|betrag)\b|@\s?\d+(?:[.,]\d+)?\s?%/u;
/** Item lines above the totals are read back up to this many non-item lines in a row. */
const MAX_LINES_BETWEEN_ITEMS = 3;
/** A gap of more than this many line heights above an item ends the block. */
const BLOCK_GAP = 4.5;

interface ColumnNames {
  description?: string;
  quantity?: string;
  unitPrice?: string;
  lineTotal: string;
  productCode?: string;
}

function columnNamesOf(specifications: TableColumnSpecification[]): ColumnNames | undefined {
  const byRole = (role: string): string | undefined => specifications.find((column) => column.role === role && !column.hidden)?.name;
  const lineTotal = byRole('line-total');
  if (!lineTotal) return undefined;
  const names: ColumnNames = { lineTotal };
  const description = byRole('description');
  const quantity = byRole('quantity');
  const unitPrice = byRole('unit-price');
  const productCode = specifications.find((column) => column.name === 'product_code' && !column.hidden)?.name;
  if (description) names.description = description;
  if (quantity) names.quantity = quantity;
  if (unitPrice) names.unitPrice = unitPrice;
  if (productCode) names.productCode = productCode;
  return names;
}

function parseMoney(text: string): number {
  return Number(text.replace(',', '.'));
}

/**
 * A count or price the line prints only as OCR garbled it, taken in the one reading that makes the line
 * multiply to its amount (or, for a count the camera lost, the amount over the price). The line's
 * arithmetic chose it, so it cannot also vouch for the row: it is left out of the row's check.
 */
interface CountOrPrice {
  value: number;
  words: LayoutWord[];
  repaired?: true;
}

/** One item line as printed: its parts, each with the words it was read from. */
interface ItemLine {
  row: LayoutRow;
  amount: CountOrPrice;
  quantity?: CountOrPrice;
  unitPrice?: CountOrPrice;
  productCode?: { value: string; words: LayoutWord[] };
  description?: { value: string; words: LayoutWord[] };
  /** The line prints no words besides its numbers: its description is a line above. */
  numbersOnly?: boolean;
  /**
   * A printed count that does not multiply the price beside it to the amount, while another whole count
   * would ("3 *RM 33.02 … 66.04"): which one OCR misread only the till's quantity total can say.
   */
  countAgainstPrice?: { quantity: CountOrPrice; unitPrice: CountOrPrice; printed: number };
}

/** Specks the camera read as marks ("|", "_", "—") are not words of the line. */
const SPECK = /^[|\\/;:_\-–—~'"“”‘’.,!¢©«»=]+$/;

function wordsOf(row: LayoutRow): { word: LayoutWord; segmentStart: boolean }[] {
  return row.segments.flatMap((segment) => {
    const words = joinedAtThePoint(segment.words.filter((word) => !SPECK.test(word.text)));
    return words.map((word, index) => ({ word, segmentStart: index === 0 }));
  });
}

/** An amount the camera split after its point ("38." "00") is one word again ("38.00"). */
function joinedAtThePoint(words: LayoutWord[]): LayoutWord[] {
  const joined: LayoutWord[] = [];
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index]!;
    const next = words[index + 1];
    if (next && AMOUNT_BEFORE_POINT.test(word.text) && CENTS_AFTER_POINT.test(next.text)) {
      const confidences = [word.confidence, next.confidence].filter((confidence): confidence is number => confidence !== undefined);
      joined.push({
        text: word.text + next.text,
        start: word.start,
        box: unitePlacements([word.box, next.box]),
        ...(confidences.length > 0 ? { confidence: Math.min(...confidences) } : {}),
      });
      index += 1;
      continue;
    }
    joined.push(word);
  }
  return joined;
}

/** The item a line prints, or undefined when it is not an item line. */
function itemLineOf(row: LayoutRow): ItemLine | undefined {
  const words = wordsOf(row);
  let last = words.length - 1;
  while (last >= 0 && TAX_CODE.test(words[last]!.word.text)) last -= 1;
  if (last >= 1 && TAX_CODE_READ_AS_DIGIT.test(words[last]!.word.text) && words[last]!.segmentStart === false && MONEY.test(words[last - 1]!.word.text)) last -= 1;
  if (last < 1 || words.length - 1 - last > 2) return undefined;
  const before = words.slice(0, last);
  // A currency written apart before the amount ("Crispy Bun    HK$ 28.00") is part of it: the amount's
  // column starts at the sign.
  const signApart = before.length > 1 && isCurrencyWord(before[before.length - 1]!.word.text);
  const amountOpensColumn = words[last]!.segmentStart || (signApart && before[before.length - 1]!.segmentStart);
  if (signApart) before.pop();
  // The amount stands in a column of its own, or follows the line's quantity and price.
  if (!amountOpensColumn && !/\d$/.test(before[before.length - 1]!.word.text)) return undefined;
  const money = MONEY.exec(words[last]!.word.text);
  const oneReadAsALetter = money ? undefined : MONEY_WITH_ITS_ONE_READ_AS_A_LETTER.exec(words[last]!.word.text);
  const value = money ? parseMoney(money[1]!) : oneReadAsALetter ? parseMoney(`1${oneReadAsALetter[1]!}`) : amountWithItsPointMisread(words[last]!.word.text, before.map((entry) => entry.word.text).join(' '));
  if (value === undefined) return undefined;
  const amount = { value, words: [words[last]!.word] };
  if (amount.value <= 0) return undefined;
  const line: ItemLine = { row, amount };
  let rest = before.map((entry) => entry.word);
  const columnStarts = new Set(before.filter((entry) => entry.segmentStart).map((entry) => entry.word));
  const text = rest.map((word) => word.text).join(' ');
  const times = QUANTITY_TIMES_PRICE.exec(text);
  const plain = times ? undefined : QUANTITY_AND_PRICE.exec(text);
  const pair = times ?? plain;
  if (pair) {
    const quantity = parseMoney(pair[1]!);
    const unitPrice = parseMoney(pair[2]!);
    if (times || rowAddsUp({ quantity, unitPrice, lineTotal: amount.value })) {
      const tokens = pair[0].trim().split(/\s+/).length;
      const pairWords = rest.slice(rest.length - tokens);
      line.quantity = { value: quantity, words: pairWords.slice(0, 1) };
      line.unitPrice = { value: unitPrice, words: pairWords.slice(-1) };
      rest = rest.slice(0, rest.length - tokens);
    }
  }
  // A count and a unit price elsewhere among the line's numbers ("O.C. WHITE 2.13 16 8 2  4.26": price,
  // issued, exchanged, sold), where they multiply to the amount.
  if (!line.quantity) {
    const found = countAndPriceFor(rest.map((word) => word.text), amount.value);
    if (found) {
      line.quantity = { value: found.quantity, words: [rest[found.countAt]!] };
      line.unitPrice = { value: found.unitPrice, words: [rest[found.priceAt]!] };
      rest = withoutCountAndPrice(rest, [found.countAt, found.priceAt]);
    }
  }
  // Count and price as OCR garbled them ("35 04" for 36.04, "1272" for 12.72, "6 003" for 6.00 × 3).
  if (!line.quantity) {
    const repaired = repairedCountAndPriceFor(rest.map((word) => word.text), amount.value);
    if (repaired) {
      const wordsAt = (indices: number[]): LayoutWord[] => indices.map((index) => rest[index]!);
      line.quantity = { value: repaired.quantity, words: wordsAt(repaired.countAt), repaired: true };
      line.unitPrice = { value: repaired.unitPrice, words: wordsAt(repaired.priceAt), repaired: true };
      rest = withoutCountAndPrice(rest, [...repaired.countAt, ...repaired.priceAt]);
    }
  }
  if (!line.quantity) {
    const against = countAgainstPriceFor(rest, amount.value);
    if (against) line.countAgainstPrice = against;
  }
  // "1x 000008204363": a count before the barcode (its x read as "%" too: "1% 000001018506").
  if (!line.quantity && rest.length >= 2 && /^\d{1,3}[xX%]$/.test(rest[0]!.text) && /^\d{5,14}$/.test(rest[1]!.text)) {
    line.quantity = { value: Number(rest[0]!.text.slice(0, -1)), words: [rest[0]!] };
    rest = rest.slice(1);
  }
  // "LD 000008190801  5.90SR": a department or tax letter and a barcode, the whole line before its
  // amount: the item's code, named on another line.
  if (rest.length === 2 && /^[A-Z]{1,2}$/.test(rest[0]!.text) && /^\d{8,14}$/.test(rest[1]!.text)) {
    line.productCode = { value: rest[1]!.text, words: [rest[1]!] };
    rest = [];
  }
  // A barcode or item code opening the line.
  if (rest.length > 0 && /^\d{5,14}$|^(?=.*\d)[A-Z0-9-]{5,}$/.test(rest[0]!.text) && (rest.length === 1 || line.quantity || rest.slice(1).every((word) => !/\p{L}/u.test(word.text)))) {
    line.productCode = { value: rest[0]!.text, words: [rest[0]!] };
    rest = rest.slice(1);
  }
  // "COCA COLA 600ML    1    18.50": a count in a column of its own between the name and the amount.
  // Only set apart by a gap: "SHOE SIZE 10  59.90" prints the number as part of the name.
  const countApart = rest[rest.length - 1];
  if (!line.quantity && countApart && rest.length >= 2 && /^\d{1,2}$/.test(countApart.text) && Number(countApart.text) > 0 && /\p{L}/u.test(rest[rest.length - 2]!.text) && columnStarts.has(countApart)) {
    line.quantity = { value: Number(countApart.text), words: [countApart] };
    rest = rest.slice(0, -1);
  }
  // "1 Unagi don  28.00": a count before the name.
  if (!line.quantity && rest.length >= 2 && /^\d{1,2}$/.test(rest[0]!.text) && /\p{L}/u.test(rest[1]!.text)) {
    line.quantity = { value: Number(rest[0]!.text), words: [rest[0]!] };
    rest = rest.slice(1);
    // "2 x Brezel": the sign between the count and the name is neither.
    if (rest.length >= 2 && /^[xX×]$/.test(rest[0]!.text)) rest = rest.slice(1);
  }
  // A short item number before the name ("2174 COKE ZERO", "1 D28 MILO DINO"): the product code.
  if (!line.productCode && rest.length >= 2 && (/^\d{3,4}$/.test(rest[0]!.text) || /^[A-Z]\d{2,3}$/.test(rest[0]!.text)) && /\p{L}{2}/u.test(rest[1]!.text)) {
    line.productCode = { value: rest[0]!.text, words: [rest[0]!] };
    rest = rest.slice(1);
  }
  while (rest.length > 1 && TAX_CODE.test(rest[rest.length - 1]!.text)) rest = rest.slice(0, -1);
  const description = rest.map((word) => word.text).join(' ').trim();
  // "1 * RM 2.83 UNT ( 0.17)=RM 2.83": a line that opens with its count times its price is the price
  // line of the item named above it; its other words are the till's working, not a name.
  if (line.quantity && COUNT_TIMES_PRICE_FIRST.test(text)) line.numbersOnly = true;
  else if (/\p{L}{2}/u.test(description)) line.description = { value: description, words: rest };
  // Numbers only ("9045734 11% 7.50."): a line of code, quantity and price whose description is above it.
  else line.numbersOnly = true;
  return line;
}

/**
 * An amount whose point the camera lost or read as a colon ("636", "8:70."), taken only where the
 * quantity and unit price printed before it multiply to it: otherwise nothing says where the point was.
 */
function amountWithItsPointMisread(text: string, textBefore: string): number | undefined {
  const misread = AMOUNT_WITH_POINT_MISREAD.exec(text);
  if (!misread) return undefined;
  const value = Number(`${misread[1]}.${misread[2]}`);
  const pair = QUANTITY_TIMES_PRICE.exec(textBefore) ?? QUANTITY_AND_PRICE.exec(textBefore);
  if (pair && rowAddsUp({ quantity: parseMoney(pair[1]!), unitPrice: parseMoney(pair[2]!), lineTotal: value })) return value;
  return countAndPriceFor(textBefore.split(' '), value) ? value : undefined;
}

/**
 * A count (a whole number up to 999) and a unit price (a money amount) among the words of a line whose
 * product is the amount: the first such pair, price first, so that "1097 4 9.54 10.11 38.16" gives 4 ×
 * 9.54 and the price with tax beside it is left alone.
 */
function countAndPriceFor(words: string[], amount: number): { quantity: number; unitPrice: number; countAt: number; priceAt: number } | undefined {
  for (let priceAt = 0; priceAt < words.length; priceAt += 1) {
    const unitPrice = priceReadAs(words[priceAt]!);
    if (unitPrice === undefined || unitPrice <= 0) continue;
    for (let countAt = 0; countAt < words.length; countAt += 1) {
      if (countAt === priceAt) continue;
      const quantity = countReadAs(words[countAt]!);
      if (quantity !== undefined && quantity > 0 && rowAddsUp({ quantity, unitPrice, lineTotal: amount })) return { quantity, unitPrice, countAt, priceAt };
    }
  }
  return undefined;
}

/**
 * The line's words once its count and price are taken: where only numbers follow the first of them, the
 * whole tail goes (more columns of figures, no part of the name); else just those words.
 */
function withoutCountAndPrice(words: LayoutWord[], taken: readonly number[]): LayoutWord[] {
  const first = Math.min(...taken);
  return words.slice(first).every((word) => !/\p{L}/u.test(word.text)) ? words.slice(0, first) : words.filter((_, index) => !taken.includes(index));
}

/** At most this many OCR misreadings in one count-and-price reading of a line. */
const MAX_REPAIRS = 2;
/** A count the camera lost is the amount over the price only up to this many. */
const MAX_DERIVED_COUNT = 99;

/** One way to read a price (and maybe its count) from one word or two neighbouring words of a line. */
interface PriceReading {
  unitPrice: number;
  priceAt: number[];
  /** A count printed glued to the price ("2.50'3", "6 003"). */
  quantity?: number;
  countAt?: number[];
  repairs: number;
}

/** The digits of a price read as "ddd.dd", and each reading of them with one digit OCR may have confused. */
function priceWithConfusions(units: string, cents: string, repairs: number): { value: number; repairs: number }[] {
  const text = `${units}${cents}`;
  return [
    { value: Number(`${units}.${cents}`), repairs },
    ...withOneDigitConfused(text).map((digits) => ({ value: Number(`${digits.slice(0, -2)}.${digits.slice(-2)}`), repairs: repairs + 1 })),
  ];
}

/**
 * The price readings of a line's words as OCR garbles a till's numbers: a price as printed (0 repairs);
 * without its point ("1272" for 12.72); split at its point into two words ("35 04", "7 99°."); printed
 * before its count with the "*" between them read as a mark or lost ("2.50'3", "6 003" for 6.00 * 3);
 * each also with one digit OCR confuses (one more repair).
 */
function priceReadingsOf(words: string[]): PriceReading[] {
  const readings: PriceReading[] = [];
  const add = (priceAt: number[], units: string, cents: string, repairs: number, count?: string): void => {
    for (const reading of priceWithConfusions(units, cents, repairs)) {
      if (reading.value <= 0) continue;
      readings.push({ unitPrice: reading.value, priceAt, repairs: reading.repairs, ...(count === undefined ? {} : { quantity: Number(count), countAt: priceAt }) });
    }
  };
  words.forEach((word, index) => {
    const printed = /^(?:@|\$|RM)?(\d{1,6})[.,:;](\d{2})\.?$/.exec(word);
    if (printed) add([index], printed[1]!, printed[2]!, 0);
    const pointLost = /^(\d{1,4})(\d{2})$/.exec(word);
    if (pointLost && word.length >= 3) add([index], pointLost[1]!, pointLost[2]!, 1);
    const gluedToCount = /^(\d{1,4})[.,:;](\d{2})[^\d\s](\d{1,2})$/.exec(word);
    if (gluedToCount) add([index], gluedToCount[1]!, gluedToCount[2]!, 1, gluedToCount[3]!);
    const next = words[index + 1];
    if (next === undefined || !/^\d{1,4}$/.test(word)) return;
    const splitAtPoint = /^(\d{2})[^\d\s\p{L}]{0,2}$/u.exec(next);
    if (splitAtPoint) add([index, index + 1], word, splitAtPoint[1]!, 1);
    const splitAndGlued = /^(\d{2})(\d{1,2})$/.exec(next);
    if (splitAndGlued) add([index, index + 1], word, splitAndGlued[1]!, 1, splitAndGlued[2]!);
  });
  return readings;
}

/**
 * The count and unit price of a line whose numbers multiply to its amount only once OCR's misreadings
 * are undone (see priceReadingsOf; the count as printed): the reading with the fewest
 * repairs, taken only where it is the one such reading. Failing that, a count the camera lost: the
 * amount over the price right before it, where that is a whole number and no other word of the line reads
 * as a count. Undefined where nothing settles them: a guess is worse than no cell.
 */
function repairedCountAndPriceFor(words: string[], amount: number): { quantity: number; unitPrice: number; countAt: number[]; priceAt: number[] } | undefined {
  const prices = priceReadingsOf(words);
  const found: { quantity: number; unitPrice: number; countAt: number[]; priceAt: number[]; repairs: number }[] = [];
  for (const price of prices) {
    if (price.quantity !== undefined) {
      if (price.quantity > 0 && multipliesToTheCent(price.quantity, price.unitPrice, amount)) found.push({ quantity: price.quantity, unitPrice: price.unitPrice, countAt: price.countAt!, priceAt: price.priceAt, repairs: price.repairs });
      continue;
    }
    words.forEach((word, countAt) => {
      if (price.priceAt.includes(countAt)) return;
      // The count as printed: a count "repaired" to 1 would make any price equal to the amount add up.
      const quantity = countReadAs(word);
      if (quantity === undefined || quantity <= 0 || price.repairs === 0 || price.repairs > MAX_REPAIRS) return;
      if (multipliesToTheCent(quantity, price.unitPrice, amount)) found.push({ quantity, unitPrice: price.unitPrice, countAt: [countAt], priceAt: price.priceAt, repairs: price.repairs });
    });
  }
  const fewest = Math.min(...found.map((reading) => reading.repairs).filter((repairs) => repairs <= MAX_REPAIRS));
  const best = found.filter((reading) => reading.repairs === fewest);
  if (best.length > 0) return new Set(best.map((reading) => `${reading.quantity}×${reading.unitPrice}`)).size === 1 ? best[0] : undefined;
  // A count the camera lost: the price right before the amount, at most one repair, divides it.
  const last = words.length - 1;
  const closing = prices.filter((price) => price.quantity === undefined && price.repairs <= 1 && price.priceAt.includes(last));
  const derived = closing.flatMap((price) => {
    const quantity = Math.round(amount / price.unitPrice);
    const othersReadAsCount = words.some((word, index) => !price.priceAt.includes(index) && countReadAs(word) !== undefined);
    return quantity >= 1 && quantity <= MAX_DERIVED_COUNT && !othersReadAsCount && multipliesToTheCent(quantity, price.unitPrice, amount) ? [{ ...price, quantity }] : [];
  });
  const fewestDerived = Math.min(...derived.map((reading) => reading.repairs));
  const bestDerived = derived.filter((reading) => reading.repairs === fewestDerived);
  if (new Set(bestDerived.map((reading) => `${reading.quantity}×${reading.unitPrice}`)).size !== 1) return undefined;
  return { quantity: bestDerived[0]!.quantity, unitPrice: bestDerived[0]!.unitPrice, countAt: [], priceAt: bestDerived[0]!.priceAt };
}

/** The one printed count and printed price of a line whose amount over the price is another whole count. */
function countAgainstPriceFor(words: LayoutWord[], amount: number): ItemLine['countAgainstPrice'] {
  const counts = words.flatMap((word) => {
    const value = /^\d{1,2}$/.test(word.text) ? countReadAs(word.text) : undefined;
    return value === undefined || value <= 0 ? [] : [{ value, word }];
  });
  const prices = words.flatMap((word) => {
    const value = priceReadAs(word.text);
    const quantity = value ? Math.round(amount / value) : 0;
    return value !== undefined && value > 0 && quantity >= 1 && quantity <= MAX_DERIVED_COUNT && multipliesToTheCent(quantity, value, amount) ? [{ value, quantity, word }] : [];
  });
  if (counts.length !== 1 || prices.length !== 1 || counts[0]!.value === prices[0]!.quantity) return undefined;
  return {
    printed: counts[0]!.value,
    quantity: { value: prices[0]!.quantity, words: [counts[0]!.word], repaired: true },
    unitPrice: { value: prices[0]!.value, words: [prices[0]!.word], repaired: true },
  };
}

/** A till's count of the quantities sold ("Qty Count : 3.0", "Qty(s) : 11", "TOTQTY: 3", "Total Qty 6"). */
const QUANTITY_TOTAL = /\b(?:qty ?count|qty ?\(s\)|qtys|tot ?qty|total qty|total quantity)\s?:?\s?(\d{1,4})(?:[.,]0{1,2})?\b/;

/** The quantity total printed on the closing line or the summary lines under it. */
function quantityTotalBelow(page: LayoutPage, closingIndex: number): number | undefined {
  for (const row of page.rows.slice(closingIndex, closingIndex + 12)) {
    const total = QUANTITY_TOTAL.exec(row.segments.map((segment) => segment.text).join(' ').toLowerCase());
    if (total) return Number(total[1]);
  }
  return undefined;
}

/**
 * Where the till prints its quantity total and the items' counts do not add up to it, the one line whose
 * count OCR misread against its price ("3 *RM 33.02 … 66.04" under "Qty Count: 3.0", the other item 1)
 * takes the count its amount over its price gives, when that makes the counts add up.
 */
function countsCheckedAgainstTotal(block: BlockItem[], total: number | undefined): void {
  if (total === undefined || block.some(({ line }) => !line.quantity && !line.countAgainstPrice)) return;
  const printed = block.reduce((sum, { line }) => sum + (line.quantity?.value ?? line.countAgainstPrice!.printed), 0);
  const settling = block.filter(({ line }) => line.countAgainstPrice && printed - line.countAgainstPrice.printed + line.countAgainstPrice.quantity.value === total);
  if (printed === total || settling.length !== 1) return;
  const line = settling[0]!.line;
  line.quantity = line.countAgainstPrice!.quantity;
  line.unitPrice = line.countAgainstPrice!.unitPrice;
}

/**
 * A unit price as a camera reads it: "2.50", "2,50", "@17.83", "$7.10", and with its point read as a
 * colon or a speck after it ("2:50.", "7.50."). Taken only where a count multiplies it to the amount, so a time is never a price.
 */
function priceReadAs(word: string): number | undefined {
  const price = /^(?:@|\$|RM)?(\d{1,6})[.,:;](\d{2})\.?$/.exec(word);
  return price ? Number(`${price[1]}.${price[2]}`) : undefined;
}

/**
 * A count as a till prints it beside its price: "3", "1X", "2x", "1.00" (a count to two places), and a
 * 1 the camera read as a letter ("l x 2.10"). Taken only where it multiplies a price to the amount.
 */
function countReadAs(word: string): number | undefined {
  const count = /^(\d{1,3}|[lI])(?:\.0{2,3})?[xX]?$/.exec(word);
  if (!count) return undefined;
  return /^[lI]$/.test(count[1]!) ? 1 : Number(count[1]);
}

function normalizedText(row: LayoutRow): string {
  return normalizeForMatching(row.segments.map((segment) => segment.text).join(' ')).trim();
}

/**
 * A line that carries a label ("Date: ...", "Cashier : 12", "Bill No.: 7"): the receipt's head, above
 * any item. A colon between digits is no label: a time, or a mark the camera read in a size ("3.5:x6").
 */
function isLabelled(row: LayoutRow): boolean {
  return row.segments.some((segment) => /[\p{L}).#]\s?:/u.test(segment.text));
}

/**
 * A line that closes the item lines: a till's summary ("Item Count", "Total Qty", "Subtotal") or a
 * totals label with its amount (a tax label in the receipt's head, "GST ID: ...", prints none).
 */
function endsItems(row: LayoutRow, options: TableReadingOptions): boolean {
  if (TILL_SUMMARY.test(normalizedText(row))) return true;
  return (options.totalsRows.has(`${row.pageNumber}:${row.index}`) || TOTALS_WORD.test(normalizedText(row))) && amountOnLine(row) !== undefined;
}

/** An item line of the block with the text lines printed between it and its neighbours. */
interface BlockItem {
  line: ItemLine;
  textAbove: LayoutRow[];
  textBelow: LayoutRow[];
}

/** The item lines above a totals line, top to bottom, with the text lines printed above and below each. */
function itemBlockAbove(page: LayoutPage, totalsIndex: number, options: TableReadingOptions, specifications: TableColumnSpecification[]): { block: BlockItem[]; numbersUnderHeader: boolean } {
  const block: BlockItem[] = [];
  let numbersUnderHeader = false;
  let pendingText: LayoutRow[] = [];
  let linesSinceItem = 0;
  let quantityBelow: { row: LayoutRow; match: RegExpExecArray } | undefined;
  let below = page.rows[totalsIndex]!;
  for (let index = totalsIndex - 1; index >= 0; index -= 1) {
    const row = page.rows[index]!;
    if (below.top - row.bottom > page.typicalLineHeight * BLOCK_GAP) break;
    // A header over the items ("Item Qty S/Price Amount Tax") is their top; a till that prints the item
    // code and numbers on the line right under it names each item on the line below.
    if (readsAsTableHeader(row, specifications)) {
      numbersUnderHeader = below !== page.rows[totalsIndex] && mostlyNumbers(below);
      break;
    }
    below = row;
    if (isLabelled(row) || endsItems(row, options) || TOTALS_WORD.test(normalizedText(row))) break;
    const line = NOT_AN_ITEM.test(normalizedText(row)) ? undefined : itemLineOf(row);
    const quantityLine = line ? undefined : QUANTITY_LINE.exec(wordsOf(row).map((entry) => entry.word.text).join(' '));
    // Quantity and price under an item belong to the item above them, also where the line under them is
    // an item whose amount was not read ("066 MILO ..." with only its tax code).
    if (quantityLine) {
      quantityBelow = { row, match: quantityLine };
      continue;
    }
    if (line) {
      if (quantityBelow) priceFromLineBelow(line, quantityBelow.row, quantityBelow.match);
      quantityBelow = undefined;
      if (block.length > 0) block[0]!.textAbove = pendingText;
      block.unshift({ line, textAbove: [], textBelow: pendingText });
      pendingText = [];
      linesSinceItem = 0;
      continue;
    }
    quantityBelow = undefined;
    // An item line whose amount the camera did not read ("9750009 V X 630% 6:30") is no gap in the items.
    linesSinceItem = mostlyNumbers(row) ? 0 : linesSinceItem + 1;
    if (linesSinceItem > MAX_LINES_BETWEEN_ITEMS) break;
    pendingText.unshift(row);
  }
  // Text lines above the first item (at most two) may be its description.
  if (block.length > 0) block[0]!.textAbove = pendingText.slice(-2);
  return { block, numbersUnderHeader };
}

/**
 * More numbers than other words: an item's code and numbers, not its name. A word with digits and a
 * run of letters ("2PIN", "2PCS", "500G") is part of a name, not a number.
 */
function mostlyNumbers(row: LayoutRow): boolean {
  const words = wordsOf(row).map((entry) => entry.word.text);
  const withDigits = words.filter((word) => /\d/.test(word) && !/\p{L}{2}/u.test(word)).length;
  return withDigits >= 3 && withDigits > words.length - withDigits;
}

/**
 * The quantity and unit price printed under an item line, where they multiply to its amount. The "@"
 * before the quantity ("@2 X RM 2.20") is often read as a digit ("82"): without it the quantity may
 * add up where the reading does not.
 */
function priceFromLineBelow(line: ItemLine, row: LayoutRow, match: RegExpExecArray): void {
  if (line.quantity || line.unitPrice) return;
  const unitPrice = parseMoney(match[2]!);
  const printed = match[1]!;
  const quantity = [printed, printed.slice(1)].filter(Boolean).map(Number).find((candidate) => rowAddsUp({ quantity: candidate, unitPrice, lineTotal: line.amount.value }));
  if (quantity === undefined) return;
  const words = wordsOf(row).map((entry) => entry.word);
  line.quantity = { value: quantity, words: words.slice(0, 1) };
  line.unitPrice = { value: unitPrice, words: words.slice(-1) };
}

/** The description of a line of only quantity and price: the wordiest text line above it. */
function descriptionAbove(textAbove: LayoutRow[]): { value: string; words: LayoutWord[] } | undefined {
  let best: LayoutRow | undefined;
  let bestLetters = 0;
  // Lines above an item line whose amount was not read name that item, not this one.
  const unread = textAbove.findLastIndex(mostlyNumbers);
  for (const row of textAbove.slice(unread + 1)) {
    const letters = row.segments.map((segment) => segment.text).join(' ').replace(/[^\p{L}]/gu, '').length;
    if (letters > bestLetters) {
      best = row;
      bestLetters = letters;
    }
  }
  if (!best || bestLetters < 3) return undefined;
  // A tax code closing the description line ("AIR ADAPTOR  SR") is not part of it: the code printed in
  // a column of its own, or else one last word; a short last word of the name ("SHA BU  GR") stays.
  const segments = best.segments.length > 1 ? best.segments.filter((segment) => !TAX_CODE.test(segment.text.trim())) : best.segments;
  const words = segments.flatMap((segment) => segment.words);
  if (segments.length === best.segments.length && words.length > 1 && TAX_CODE.test(words[words.length - 1]!.text)) words.pop();
  return { value: words.map((word) => word.text).join(' '), words };
}

/**
 * Whether a line of only code, quantity and amount is named on the line below it ("1x 000008204363
 * 14.99SR" over "KIT KAT SHARE B") rather than above: the last such item has a name between it and the
 * line that closes the items, and nothing with digits (an item line whose amount was not read). Where
 * names stand above, the last item sits on the closing line.
 */
function namedBelow(block: BlockItem[]): boolean {
  const last = block.at(-1);
  if (!last?.line.numbersOnly) return false;
  const text = last.textBelow.map((row) => row.segments.map((segment) => segment.text).join(' '));
  return text.some((line) => /\p{L}{3}/u.test(line)) && !text.some((line) => /\d/.test(line));
}

/**
 * Where a name line opens with an item code (after a tax code, if any) and the name follows it: the
 * code's index, the code, and what of its word belongs to the name. Codes are barcodes and item numbers
 * ("100100000170-"), also glued to the name by a hyphen ("100100000171-Meat Dish"), and a letter with
 * two or three digits ("P02 Spaghetti", a menu's dish number).
 */
function leadingCodeOf(words: LayoutWord[]): { at: number; code: string; nameStart: string } | undefined {
  const at = words.length > 2 && /^[A-Z]{1,2}$/.test(words[0]!.text) && /^\d{5,14}-?(?:\p{L}|$)/u.test(words[1]!.text) ? 1 : 0;
  const word = words[at]?.text ?? '';
  const glued = /^(\d{5,14})-(\p{L}.*)$/u.exec(word);
  if (glued) return { at, code: glued[1]!, nameStart: glued[2]! };
  if (words.length <= at + 1) return undefined;
  if (/^\d{5,14}-?$/.test(word) || (at === 0 && /^[A-Z]\d{2,3}$/.test(word) && /\p{L}{2}/u.test(words[1]!.text))) return { at, code: word.replace(/-$/, ''), nameStart: '' };
  return undefined;
}

function lettersOf(row: LayoutRow): number {
  return row.segments.map((segment) => segment.text).join(' ').replace(/[^\p{L}]/gu, '').length;
}

/** The description of a line of only code, quantity and amount named below it: the first text line under it. */
function descriptionBelow(textBelow: LayoutRow[]): { value: string; words: LayoutWord[] } | undefined {
  const unread = textBelow.findIndex(mostlyNumbers);
  const row = (unread < 0 ? textBelow : textBelow.slice(0, unread)).find((candidate) => lettersOf(candidate) >= 3);
  if (!row) return undefined;
  const words = row.segments.flatMap((segment) => segment.words).filter((word) => !SPECK.test(word.text));
  return { value: words.map((word) => word.text).join(' '), words };
}

function isCurrencyWord(text: string): boolean {
  return CURRENCY_SIGN_WORD.test(text) || isUnambiguousCurrencyCode(text);
}

function amountOnLine(row: LayoutRow): number | undefined {
  const words = wordsOf(row).map((entry) => entry.word.text);
  for (let index = words.length - 1; index >= 0; index -= 1) {
    const money = MONEY.exec(words[index]!);
    if (money) return parseMoney(money[1]!);
  }
  return undefined;
}

/**
 * Money in whole units with its thousands grouped ("22.000", "1,250,000", "Rp22.000", "¥1,480"), as a
 * document in rupiah, yen or won prints it: no cents, so the two-decimal money of a till line is not it.
 * Under a thousand it has no group to tell it by, so it counts only with its sign ("¥180").
 */
const WHOLE_UNIT_MONEY = /^(?:Rp\.?|IDR|¥|￥|₩)?(\d{1,3}([.,])\d{3}(?:\2\d{3})*)$|^(?:Rp\.?|¥|￥|₩)(\d{1,3})$/u;

/**
 * The page with its whole-unit money written as the till lines' money is ("22.000" as "22000.00"), so
 * that the item lines of a document in a currency without cents are read as any other. Only for such a
 * document (TableReadingOptions.wholeUnitMoney): elsewhere "12.402" is a quantity to three places.
 */
function withWholeUnitMoneyInCents(page: LayoutPage): LayoutPage {
  const rows = page.rows.map((row) => ({
    ...row,
    segments: row.segments.map((segment) => {
      let text = '';
      let copiedUpTo = 0;
      const words = segment.words.map((word) => {
        const money = WHOLE_UNIT_MONEY.exec(word.text);
        text += segment.text.slice(copiedUpTo, word.start);
        const written = money ? `${(money[1] ?? money[3]!).replace(/[.,]/g, '')}.00` : word.text;
        const start = text.length;
        text += written;
        copiedUpTo = word.start + word.text.length;
        return written === word.text ? { ...word, start } : { ...word, text: written, start };
      });
      return { ...segment, text: text + segment.text.slice(copiedUpTo), words };
    }),
  }));
  return { ...page, rows };
}

/**
 * The item lines of a layout without a table header: on the first page where a block of item lines
 * stands above a totals line. Undefined when there is none.
 */
export function readTillRows(layout: DocumentLayout, specifications: TableColumnSpecification[], options: TableReadingOptions): ExtractedTable | undefined {
  const names = columnNamesOf(specifications);
  if (!names) return undefined;
  const pages = options.wholeUnitMoney ? layout.pages.map(withWholeUnitMoneyInCents) : layout.pages;
  for (const page of pages) {
    for (let index = 1; index < page.rows.length; index += 1) {
      if (!endsItems(page.rows[index]!, options)) continue;
      const { block, numbersUnderHeader } = itemBlockAbove(page, index, options, specifications);
      // The amount on the closing line is what the items add up to where it is a (sub)total; a line
      // "Charges $0.01" or "VAT $0.00" that ends them is not their sum.
      const closing = page.rows[index]!;
      const closingSum = CLOSING_SUM.test(normalizedText(closing)) ? amountOnLine(closing) : undefined;
      if (block.length === 0) continue;
      countsCheckedAgainstTotal(block, quantityTotalBelow(page, index));
      returnSettledBySum(block, closingSum);
      if (closingSum === undefined && layout.hasGeometry) block.push(...itemGroupsBelow(page, index, block, options));
      else if (closingSum !== undefined) block.push(...sectionsBelow(page, index, options));
      return tableOf(block, names, options, layout.hasGeometry, closingSum, page.pageNumber, numbersUnderHeader);
    }
  }
  return undefined;
}

/**
 * A returned item whose minus the camera lost (a delivery slip's "Sale" column, a till's refund line):
 * when the items do not add up to their closing (sub)total and exactly one of them, counted negative,
 * makes them add up to the cent, that one is a return: its amount and count turn negative, as chosen by
 * the arithmetic (capped). Two candidates, or none, leave the lines as read.
 */
function returnSettledBySum(block: BlockItem[], closingSum: number | undefined): void {
  if (closingSum === undefined || block.length < 2) return;
  const sum = block.reduce((accumulated, { line }) => accumulated + line.amount.value, 0);
  if (Math.abs(sum - closingSum) < 0.005) return;
  const returned = block.filter(({ line }) => line.amount.value > 0 && Math.abs(sum - 2 * line.amount.value - closingSum) < 0.005);
  if (returned.length !== 1) return;
  const { line } = returned[0]!;
  line.amount = { ...line.amount, value: -line.amount.value, repaired: true };
  if (line.quantity) line.quantity = { ...line.quantity, value: -line.quantity.value, repaired: true };
}

/**
 * Items in sections, each closed by its own subtotal ("Total 0% supplies: 7.61", then more items and
 * "Total 6% supplies: 24.00"): the item lines after a closing (sub)total up to the next one are items
 * too, where their amounts add up to that next line's amount. Payment, tax and rounding lines are never
 * among them, and without that sum nothing says the lines are items.
 */
function sectionsBelow(page: LayoutPage, closingIndex: number, options: TableReadingOptions): BlockItem[] {
  const sections: BlockItem[] = [];
  let section: BlockItem[] = [];
  for (let index = closingIndex + 1; index < page.rows.length; index += 1) {
    const row = page.rows[index]!;
    const text = normalizedText(row);
    if (endsItems(row, options)) {
      const sum = CLOSING_SUM.test(text) ? amountOnLine(row) : undefined;
      const total = section.reduce((accumulated, item) => accumulated + item.line.amount.value, 0);
      if (section.length === 0 || sum === undefined || Math.abs(sum - total) > 0.011) break;
      sections.push(...section);
      section = [];
      continue;
    }
    if (isLabelled(row) || TOTALS_WORD.test(text) || NOT_AN_ITEM.test(text)) break;
    const line = itemLineOf(row);
    if (line) section.push({ line, textAbove: [], textBelow: [] });
  }
  return sections;
}

/**
 * A list of items each broken down on indented lines below it ("Amazon Glacier $2.22" over "Charges
 * $2.22" and "VAT $0.00"): the block above the first breakdown holds only the first item. The items
 * that follow at the same left edge, each after its own indented breakdown lines, belong to the list.
 */
function itemGroupsBelow(page: LayoutPage, closingIndex: number, block: BlockItem[], options: TableReadingOptions): BlockItem[] {
  const leftEdge = (row: LayoutRow): number => row.segments[0]?.box.x ?? 0;
  const itemEdge = leftEdge(block[block.length - 1]!.line.row);
  const tolerance = page.typicalLineHeight;
  const groups: BlockItem[] = [];
  let above = page.rows[closingIndex]!;
  for (let index = closingIndex + 1; index < page.rows.length; index += 1) {
    const row = page.rows[index]!;
    if (row.top - above.bottom > page.typicalLineHeight * BLOCK_GAP) break;
    above = row;
    const edge = leftEdge(row);
    if (edge > itemEdge + tolerance && endsItems(row, options)) continue;
    const text = normalizedText(row);
    const line = Math.abs(edge - itemEdge) <= tolerance && !TOTALS_WORD.test(text) && !NOT_AN_ITEM.test(text) && !isLabelled(row) ? itemLineOf(row) : undefined;
    if (!line) break;
    groups.push({ line, textAbove: [], textBelow: [] });
  }
  // Only a breakdown repeated under each item makes a list; a last item with nothing under it is not one.
  return groups.filter((group) => {
    const next = page.rows[group.line.row.index + 1];
    return next !== undefined && leftEdge(next) > itemEdge + tolerance && endsItems(next, options);
  });
}

function isRepaired(part: CountOrPrice): boolean {
  return part.repaired === true;
}

function tableOf(block: BlockItem[], names: ColumnNames, options: TableReadingOptions, hasGeometry: boolean, closingSum: number | undefined, pageNumber: number, numbersUnderHeader: boolean): ExtractedTable {
  const namesBelow = numbersUnderHeader || namedBelow(block);
  const items = block.map(({ line, textAbove, textBelow }) => {
    const named = line.description ?? (line.numbersOnly ? (namesBelow ? descriptionBelow(textBelow) : descriptionAbove(textAbove)) : undefined);
    // A code opening the name line of a numbers-only line ("00014940 RAISIN BREAD" over "1.00 4.55 4.55",
    // "SR 100100000170- Imported Veggies" after its tax code) is its product code, not part of its name.
    const leading = named && !line.description && !line.productCode ? leadingCodeOf(named.words) : undefined;
    const nameWords = leading && named ? named.words.slice(leading.at + (leading.nameStart ? 0 : 1)) : undefined;
    const description =
      leading && nameWords ? { value: [leading.nameStart, ...nameWords.slice(leading.nameStart ? 1 : 0).map((word) => word.text)].filter(Boolean).join(' '), words: nameWords } : named;
    return { ...line, ...(leading && named ? { productCode: { value: leading.code, words: [named.words[leading.at]!] } } : {}), ...(description ? { description } : {}) };
  });
  const sums = closingSum === undefined ? options.sums : [...options.sums, closingSum];
  const arithmetic = tableArithmetic(
    items.map((item) => ({
      ...(item.quantity && !isRepaired(item.quantity) ? { quantity: item.quantity.value } : {}),
      ...(item.unitPrice && !isRepaired(item.unitPrice) ? { unitPrice: item.unitPrice.value } : {}),
      lineTotal: item.amount.value,
    })),
    sums,
  );
  const rows: TableRow[] = items.map((item, index) => {
    const parts: [string | undefined, { value: TableCellValue; words: LayoutWord[]; repaired?: true } | undefined][] = [
      [names.productCode, item.productCode],
      [names.description, item.description],
      [names.quantity, item.quantity],
      [names.unitPrice, item.unitPrice],
      [names.lineTotal, item.amount],
    ];
    const allWords = parts.flatMap(([, part]) => part?.words ?? []);
    const reading = meanConfidence(allWords);
    const confidence = roundConfidence((arithmetic.rows[index] ?? 0.7) * reading);
    const values: Record<string, TableCellValue> = {};
    const cells: Record<string, TableCell> = {};
    for (const [name, part] of parts) {
      if (!name || !part) continue;
      values[name] = part.value;
      const cellConfidence = Math.min(confidence, (confidence * meanConfidence(part.words)) / Math.max(reading, 0.01));
      cells[name] = {
        confidence: roundConfidence(part.repaired ? Math.min(cellConfidence, CELL_CHOSEN_BY_ARITHMETIC) : cellConfidence),
        ...(hasGeometry && part.words.length > 0 ? { placement: clamp(unitePlacements(part.words.map((word) => word.box))) } : {}),
      };
    }
    return {
      values,
      confidence,
      pageNumber,
      ...(hasGeometry ? { placement: clamp(unitePlacements(allWords.map((word) => word.box))) } : {}),
      cells,
    };
  });
  const allWords = items.flatMap((item) => [item.amount.words, item.description?.words ?? []].flat());
  return {
    rows,
    confidence: roundConfidence(arithmetic.table * meanConfidence(allWords)),
    pageNumber,
    ...(hasGeometry ? { placement: clamp(unitePlacements(rows.flatMap((row) => (row.placement ? [row.placement] : [])))) } : {}),
    arithmetic: arithmetic.evidence,
  };
}
