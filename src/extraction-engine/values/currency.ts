// Currency mentions to ISO 4217 codes. Symbols that several currencies share ("$", "kr", "¥") are
// resolved with the document's language when given, otherwise to the most common reading.

import { normalizeForMatching } from './text-normalization.ts';

/** ISO 4217 codes accepted when printed as a code ("EUR", "PLN"). */
export const ISO_CURRENCY_CODES: ReadonlySet<string> = new Set([
  'EUR', 'USD', 'GBP', 'CHF', 'PLN', 'CZK', 'HUF', 'RON', 'BGN', 'SEK', 'NOK', 'DKK', 'ISK', 'JPY',
  'CNY', 'HKD', 'SGD', 'AUD', 'NZD', 'CAD', 'MXN', 'BRL', 'ARS', 'CLP', 'COP', 'INR', 'PKR', 'LKR',
  'NPR', 'BDT', 'IDR', 'MYR', 'THB', 'VND', 'PHP', 'KRW', 'TWD', 'ZAR', 'NGN', 'KES', 'EGP', 'MAD',
  'TRY', 'ILS', 'AED', 'SAR', 'QAR', 'KWD', 'RUB', 'UAH', 'RSD', 'HRK', 'ALL', 'MKD', 'GEL', 'KZT',
]);

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
}

function kronaFor(context: CurrencyContext): string {
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
  { pattern: /S\$/gu, code: () => 'SGD', unambiguous: true },
  { pattern: /R\$/gu, code: () => 'BRL', unambiguous: true },
  { pattern: /€|\beuros?\b/giu, code: () => 'EUR', unambiguous: true },
  { pattern: /£|\bpounds? sterling\b/giu, code: () => 'GBP', unambiguous: true },
  { pattern: /₹|\bRs\.?(?=\s?[-−]?\d|\s*$)|\brupees?\b/giu, code: () => 'INR', unambiguous: true },
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
  { pattern: /฿/gu, code: () => 'THB', unambiguous: true },
  { pattern: /₱/gu, code: () => 'PHP', unambiguous: true },
  { pattern: /\bSFr\.?|\bFr\.(?=\s?\d)/gu, code: () => 'CHF', unambiguous: true },
  { pattern: /¥|円/gu, code: (context) => (context.language === 'zh' ? 'CNY' : 'JPY'), unambiguous: false },
  { pattern: /\bkr\.?(?=\s|\d|$)/giu, code: kronaFor, unambiguous: false },
  // A bare "$" is most often the US dollar; other dollars print a prefix (A$, C$, HK$ ...).
  { pattern: /\$/gu, code: () => 'USD', unambiguous: false },
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
  for (const match of text.matchAll(CODE_PATTERN)) {
    const code = match[1] ?? '';
    if (ISO_CURRENCY_CODES.has(code) && claim(match.index, code.length)) {
      mentions.push({ code, index: match.index, length: code.length, unambiguous: true });
    }
  }
  if (!ANY_SYMBOL.some((pattern) => pattern.test(text))) return mentions.sort((left, right) => left.index - right.index);
  for (const rule of SYMBOL_RULES) {
    for (const match of text.matchAll(rule.pattern)) {
      if (claim(match.index, match[0].length)) {
        mentions.push({ code: rule.code(context), index: match.index, length: match[0].length, unambiguous: rule.unambiguous });
      }
    }
  }
  return mentions.sort((left, right) => left.index - right.index);
}

const CURRENCY_NAMES: Record<string, string> = {
  euro: 'EUR', euros: 'EUR', dollar: 'USD', dollars: 'USD', 'us dollar': 'USD', 'us dollars': 'USD',
  'pound sterling': 'GBP', pounds: 'GBP', zloty: 'PLN', zlotych: 'PLN', 'zl': 'PLN', 'franken': 'CHF',
  'swiss francs': 'CHF', 'francs suisses': 'CHF', rupees: 'INR', rupee: 'INR', rs: 'INR', 'rs.': 'INR',
};

/** A whole value that names one currency ("€", "eur", "zł", "US Dollars") as its ISO code. */
export function parseCurrency(text: string, context: CurrencyContext = {}): string | undefined {
  const trimmed = text.trim();
  if (trimmed.length === 0) return undefined;
  const upper = trimmed.toUpperCase();
  if (/^[A-Z]{3}$/.test(upper) && ISO_CURRENCY_CODES.has(upper)) return upper;
  const named = CURRENCY_NAMES[normalizeForMatching(trimmed)];
  if (named) return named;
  const mentions = findCurrencyMentions(trimmed, context);
  const codes = new Set(mentions.map((mention) => mention.code));
  if (codes.size !== 1) return undefined;
  const covered = mentions.reduce((sum, mention) => sum + mention.length, 0);
  // "EUR" inside a sentence is a mention, not a currency value; the value must be mostly the mention.
  return covered >= trimmed.replace(/\s/g, '').length * 0.5 ? [...codes][0] : undefined;
}
