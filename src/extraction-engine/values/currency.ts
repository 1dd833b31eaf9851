// Currency mentions to ISO 4217 codes. Symbols that several currencies share ("$", "kr", "¥", "Rs")
// are resolved with the document's country when known (values/country.ts), then its language,
// otherwise to the most common reading.

import { CURRENCY_OF_COUNTRY } from './country.ts';
import { normalizeForMatching } from './text-normalization.ts';
import { matchesOf } from './pattern-matches.ts';

/** ISO 4217 codes accepted when printed as a code ("EUR", "PLN"). */
export const ISO_CURRENCY_CODES: ReadonlySet<string> = new Set([
  'EUR', 'USD', 'GBP', 'CHF', 'PLN', 'CZK', 'HUF', 'RON', 'BGN', 'SEK', 'NOK', 'DKK', 'ISK', 'JPY',
  'CNY', 'HKD', 'SGD', 'AUD', 'NZD', 'CAD', 'MXN', 'BRL', 'ARS', 'CLP', 'COP', 'INR', 'PKR', 'LKR',
  'NPR', 'BDT', 'IDR', 'MYR', 'THB', 'VND', 'PHP', 'KRW', 'TWD', 'ZAR', 'NGN', 'KES', 'EGP', 'MAD',
  'TRY', 'ILS', 'AED', 'SAR', 'QAR', 'KWD', 'RUB', 'UAH', 'RSD', 'HRK', 'ALL', 'MKD', 'GEL', 'KZT',
  'PEN', 'RMB',
]);

/** Codes that are also words in capitals ("ALL PRICES", "TRY AGAIN"): a currency only beside a number. */
const WORD_LIKE_CODES: ReadonlySet<string> = new Set(['ALL', 'TRY', 'MAD', 'GEL', 'ARS', 'PEN', 'PHP', 'SAR', 'CUP', 'TOP']);

/** A word that can only be a currency code: an ISO code that is no word in capitals ("PEN" may be a pen). */
export function isUnambiguousCurrencyCode(text: string): boolean {
  return ISO_CURRENCY_CODES.has(text) && !WORD_LIKE_CODES.has(text);
}

export interface CurrencyMention {
  code: string;
  /** Offset and length of the mention in the searched text. */
  index: number;
  length: number;
  /** True for a code or an unambiguous symbol; false for "$", "kr", "¥". */
  unambiguous: boolean;
}

export interface CurrencyContext {
  /** ISO 639-1 language of the document, used for shared symbols. */
  language?: string;
  /** ISO 3166-1 country the document comes from (values/country.ts), used first for shared symbols. */
  country?: string;
}

/** The country's own currency when it is one of the readings of a shared symbol. */
function countryReading(context: CurrencyContext, readings: readonly string[]): string | undefined {
  const own = context.country ? CURRENCY_OF_COUNTRY[context.country] : undefined;
  return own && readings.includes(own) ? own : undefined;
}

/**
 * Currencies written with a bare "$" in their own country. The ringgit was the Malaysian dollar until
 * 1993 and Malaysian tills still print "$" for it: on a page whose address, tax id or legal form says
 * Malaysia a bare "$" is MYR, not USD (issue 26).
 */
const DOLLARS = ['USD', 'CAD', 'AUD', 'NZD', 'SGD', 'HKD', 'TWD', 'MXN', 'ARS', 'CLP', 'COP', 'MYR'];

function kronaFor(context: CurrencyContext): string {
  const byCountry = countryReading(context, ['SEK', 'NOK', 'DKK', 'ISK']);
  if (byCountry) return byCountry;
  if (context.language === 'da') return 'DKK';
  if (context.language === 'no' || context.language === 'nb' || context.language === 'nn') return 'NOK';
  if (context.language === 'is') return 'ISK';
  return 'SEK';
}

interface SymbolRule {
  pattern: RegExp;
  code: (context: CurrencyContext) => string;
  unambiguous: boolean;
}

// Longer, more specific forms first: "US$" before "$", "Rs." before nothing else.
const SYMBOL_RULES: SymbolRule[] = [
  { pattern: /US\$|U\.S\.\s?dollars?|US\s?dollars?/giu, code: () => 'USD', unambiguous: true },
  { pattern: /(?:AU|A)\$/gu, code: () => 'AUD', unambiguous: true },
  { pattern: /(?:CA|C)\$/gu, code: () => 'CAD', unambiguous: true },
  { pattern: /NZ\$/gu, code: () => 'NZD', unambiguous: true },
  { pattern: /HK\$/gu, code: () => 'HKD', unambiguous: true },
  { pattern: /NT\$/gu, code: () => 'TWD', unambiguous: true },
  { pattern: /MX\$|Mex\$/gu, code: () => 'MXN', unambiguous: true },
  { pattern: /S\$/gu, code: () => 'SGD', unambiguous: true },
  { pattern: /R\$/gu, code: () => 'BRL', unambiguous: true },
  // Ringgit and rupiah, as receipts print them: "RM 12.90", "RM12.90", "Rp 15.000", "Total (RM)".
  { pattern: /(?<![A-Za-z])RM(?![A-Za-z])/gu, code: () => 'MYR', unambiguous: true },
  { pattern: /(?<![A-Za-z])R[Pp]\.?(?=\s?\d)|(?<![A-Za-z])Rp(?![A-Za-z])/gu, code: () => 'IDR', unambiguous: true },
  { pattern: /元|人民币|\bRMB\b/gu, code: () => 'CNY', unambiguous: true },
  { pattern: /€|\beuros?\b/giu, code: () => 'EUR', unambiguous: true },
  { pattern: /£|\bpounds? sterling\b/giu, code: () => 'GBP', unambiguous: true },
  { pattern: /₹/gu, code: () => 'INR', unambiguous: true },
  // The rupee of India, Pakistan, Sri Lanka and Nepal: the country decides, India otherwise.
  { pattern: /₨|\bRs\.?(?=\s?[-−]?\d|\s*$)|\brupees?\b/giu, code: (context) => countryReading(context, ['INR', 'PKR', 'LKR', 'NPR']) ?? 'INR', unambiguous: true },
  { pattern: /\bzł|\bzl\b|\bzłotych\b|\bzłoty\b/giu, code: () => 'PLN', unambiguous: true },
  { pattern: /(?<!\p{L})Kč(?!\p{L})|\bKc\b(?=\s?\d)/gu, code: () => 'CZK', unambiguous: true },
  { pattern: /\bFt\b(?=\s|$)/gu, code: () => 'HUF', unambiguous: false },
  { pattern: /\blei\b/giu, code: () => 'RON', unambiguous: false },
  { pattern: /₽/gu, code: () => 'RUB', unambiguous: true },
  { pattern: /₺/gu, code: () => 'TRY', unambiguous: true },
  { pattern: /₩/gu, code: () => 'KRW', unambiguous: true },
  { pattern: /₪/gu, code: () => 'ILS', unambiguous: true },
  { pattern: /₴/gu, code: () => 'UAH', unambiguous: true },
  { pattern: /₫/gu, code: () => 'VND', unambiguous: true },
  { pattern: /₦/gu, code: () => 'NGN', unambiguous: true },
  { pattern: /৳/gu, code: () => 'BDT', unambiguous: true },
  { pattern: /₸/gu, code: () => 'KZT', unambiguous: true },
  { pattern: /₾/gu, code: () => 'GEL', unambiguous: true },
  { pattern: /(?<!\p{L})лв\.?(?!\p{L})/gu, code: () => 'BGN', unambiguous: true },
  { pattern: /(?<=\d\s?)TL(?![A-Za-z])/gu, code: () => 'TRY', unambiguous: false },
  { pattern: /(?<![A-Za-z])S\/\.?(?=\s?\d)/gu, code: () => 'PEN', unambiguous: true },
  { pattern: /\bKSh\b|\bKsh\.?(?=\s?\d)/gu, code: () => 'KES', unambiguous: true },
  { pattern: /\bDhs?\.?(?=\s?\d)|\bAED\b/gu, code: (context) => countryReading(context, ['AED', 'MAD']) ?? 'AED', unambiguous: false },
  { pattern: /฿/gu, code: () => 'THB', unambiguous: true },
  { pattern: /₱/gu, code: () => 'PHP', unambiguous: true },
  { pattern: /\bSFr\.?|\bFr\.(?=\s?\d)/gu, code: () => 'CHF', unambiguous: true },
  { pattern: /円/gu, code: () => 'JPY', unambiguous: true },
  { pattern: /¥|￥/gu, code: (context) => countryReading(context, ['JPY', 'CNY']) ?? (context.language === 'zh' ? 'CNY' : 'JPY'), unambiguous: false },
  { pattern: /\bkr\.?(?=\s|\d|$)/giu, code: kronaFor, unambiguous: false },
  // A bare "$" is the dollar (or peso) of the document's country; without one most often the US
  // dollar, as other dollars print a prefix abroad (A$, C$, HK$ ...).
  { pattern: /\$/gu, code: (context) => countryReading(context, DOLLARS) ?? 'USD', unambiguous: false },
];

// Most lines mention no currency sign: one combined test per flag set rules all symbol rules out.
// Each combined pattern matches somewhere exactly when one of its rules does.
const ANY_SYMBOL = [true, false].map((ignoreCase) => {
  const rules = SYMBOL_RULES.filter((rule) => rule.pattern.ignoreCase === ignoreCase);
  return new RegExp(rules.map((rule) => `(?:${rule.pattern.source})`).join('|'), ignoreCase ? 'iu' : 'u');
});

const CODE_PATTERN = /(?<![A-Za-z0-9])([A-Z]{3})(?![A-Za-z0-9])/gu;

/** Every currency mention in the text, in reading order, codes and symbols alike. */
export function findCurrencyMentions(text: string, context: CurrencyContext = {}): CurrencyMention[] {
  const mentions: CurrencyMention[] = [];
  const taken: boolean[] = new Array(text.length).fill(false);
  const claim = (index: number, length: number): boolean => {
    for (let offset = index; offset < index + length; offset += 1) if (taken[offset]) return false;
    for (let offset = index; offset < index + length; offset += 1) taken[offset] = true;
    return true;
  };
  for (const match of matchesOf(CODE_PATTERN, text)) {
    const code = match[1] ?? '';
    if (!ISO_CURRENCY_CODES.has(code)) continue;
    if (WORD_LIKE_CODES.has(code) && !besideNumber(text, match.index, code.length)) continue;
    if (claim(match.index, code.length)) {
      mentions.push({ code: code === 'RMB' ? 'CNY' : code, index: match.index, length: code.length, unambiguous: true });
    }
  }
  if (!ANY_SYMBOL.some((pattern) => pattern.test(text))) return mentions.sort((left, right) => left.index - right.index);
  for (const rule of SYMBOL_RULES) {
    for (const match of matchesOf(rule.pattern, text)) {
      if (claim(match.index, match[0].length)) {
        mentions.push({ code: rule.code(context), index: match.index, length: match[0].length, unambiguous: rule.unambiguous });
      }
    }
  }
  return mentions.sort((left, right) => left.index - right.index);
}

function besideNumber(text: string, index: number, length: number): boolean {
  return /\d[\s.,]?$/.test(text.slice(Math.max(0, index - 2), index)) || /^\s?[-−]?\d/.test(text.slice(index + length, index + length + 3));
}

const CURRENCY_NAMES: Record<string, string> = {
  euro: 'EUR', euros: 'EUR', dollar: 'USD', dollars: 'USD', 'us dollar': 'USD', 'us dollars': 'USD',
  'pound sterling': 'GBP', pounds: 'GBP', zloty: 'PLN', zlotych: 'PLN', 'zl': 'PLN', 'franken': 'CHF',
  'swiss francs': 'CHF', 'francs suisses': 'CHF', rupees: 'INR', rupee: 'INR', rs: 'INR', 'rs.': 'INR',
  ringgit: 'MYR', rupiah: 'IDR', baht: 'THB', yen: 'JPY', yuan: 'CNY', renminbi: 'CNY', won: 'KRW', rand: 'ZAR', forint: 'HUF',
  koruna: 'CZK', lira: 'TRY', reais: 'BRL', dirham: 'AED', riyal: 'SAR', dong: 'VND',
};

/** A whole value that names one currency ("€", "eur", "zł", "US Dollars") as its ISO code. */
export function parseCurrency(text: string, context: CurrencyContext = {}): string | undefined {
  const trimmed = text.trim();
  if (trimmed.length === 0) return undefined;
  const upper = trimmed.toUpperCase();
  if (/^[A-Z]{3}$/.test(upper) && ISO_CURRENCY_CODES.has(upper)) return upper;
  const name = normalizeForMatching(trimmed);
  const named = CURRENCY_NAMES[name];
  if (named === 'USD' && !name.startsWith('us')) return countryReading(context, DOLLARS) ?? named;
  if (named) return named;
  const mentions = findCurrencyMentions(trimmed, context);
  const codes = new Set(mentions.map((mention) => mention.code));
  if (codes.size !== 1) return undefined;
  const covered = mentions.reduce((sum, mention) => sum + mention.length, 0);
  // "EUR" inside a sentence is a mention, not a currency value; the value must be mostly the mention.
  return covered >= trimmed.replace(/\s/g, '').length * 0.5 ? [...codes][0] : undefined;
}
