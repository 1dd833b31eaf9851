import { describe, expect, it } from 'vitest';
import { findCurrencyMentions, isUnambiguousCurrencyCode, parseCurrency } from '../../../../src/extraction-engine/values/currency.ts';

describe('parseCurrency', () => {
  it.each([
    ['€', 'EUR'],
    ['EUR', 'EUR'],
    ['eur', 'EUR'],
    ['Euro', 'EUR'],
    ['$', 'USD'],
    ['US$', 'USD'],
    ['£', 'GBP'],
    ['zł', 'PLN'],
    ['PLN', 'PLN'],
    ['CHF', 'CHF'],
    ['₹', 'INR'],
    ['Rs.', 'INR'],
    ['HK$', 'HKD'],
    ['Kč', 'CZK'],
    ['US Dollars', 'USD'],
  ])('maps %s to %s', (text, code) => {
    expect(parseCurrency(text)).toBe(code);
  });

  it('resolves "kr" with the document language', () => {
    expect(parseCurrency('kr', { language: 'da' })).toBe('DKK');
    expect(parseCurrency('kr', { language: 'no' })).toBe('NOK');
    expect(parseCurrency('kr', { language: 'sv' })).toBe('SEK');
  });

  it.each([['XYZ'], ['hello'], ['The invoice is in EUR and the amount is large'], ['€ or $']])('rejects %j', (text) => {
    expect(parseCurrency(text)).toBeUndefined();
  });
});

describe('isUnambiguousCurrencyCode', () => {
  it('knows an ISO code that is no word in capitals, and nothing else, as a currency code', () => {
    expect(['HKD', 'USD', 'MYR'].map(isUnambiguousCurrencyCode)).toEqual([true, true, true]);
    // "PEN" and "TOP" are currencies and words; "ABC" and "hkd" are neither code.
    expect(['PEN', 'TOP', 'ABC', 'hkd'].map(isUnambiguousCurrencyCode)).toEqual([false, false, false, false]);
  });
});

describe('findCurrencyMentions', () => {
  it('finds codes and symbols in reading order, marking shared symbols as ambiguous', () => {
    const mentions = findCurrencyMentions('Total $ 12.00 (EUR 11,00), paid in €');
    expect(mentions.map((mention) => [mention.code, mention.unambiguous])).toEqual([
      ['USD', false],
      ['EUR', true],
      ['EUR', true],
    ]);
  });

  it('does not take three capitals inside a word or a non-currency code', () => {
    expect(findCurrencyMentions('EUROPA Logistics, ABC, VAT')).toEqual([]);
  });
});

describe('local currency signs and abbreviations', () => {
  it.each([
    ['RM 12.90', 'MYR'],
    ['TOTAL (RM)', 'MYR'],
    ['Rp 15.000', 'IDR'],
    ['R$ 49,90', 'BRL'],
    ['S$ 8.50', 'SGD'],
    ['NT$ 320', 'TWD'],
    ['MX$ 120.00', 'MXN'],
    ['₦ 2,500', 'NGN'],
    ['৳ 250', 'BDT'],
    ['120 лв.', 'BGN'],
    ['S/ 35.00', 'PEN'],
    ['KSh 1,200', 'KES'],
    ['RMB 88.00', 'CNY'],
    ['45,00 TL', 'TRY'],
    ['1 200 円', 'JPY'],
  ])('finds %s as %s', (text, code) => {
    expect(findCurrencyMentions(text).map((mention) => mention.code)).toEqual([code]);
  });

  it.each([['ringgit', 'MYR'], ['Rupiah', 'IDR'], ['yen', 'JPY']])('parses the currency name %s as %s', (text, code) => {
    expect(parseCurrency(text)).toBe(code);
  });

  it('does not take words that are also codes for currencies unless a number stands beside them', () => {
    expect(findCurrencyMentions('ALL PRICES INCLUDE GST. PLEASE TRY AGAIN')).toEqual([]);
    expect(findCurrencyMentions('ALL 1,200.00').map((mention) => mention.code)).toEqual(['ALL']);
  });

  it('does not take a room number or a word for a currency', () => {
    expect(findCurrencyMentions('Rm 12, Level 3, FORM 7')).toEqual([]);
  });
});

describe('shared signs resolved by the country of the document', () => {
  it.each([
    ['$', 'SG', 'SGD'],
    ['$', 'AU', 'AUD'],
    ['$', 'CA', 'CAD'],
    ['$', 'MY', 'MYR'],
    ['$', 'DE', 'USD'],
    ['$', undefined, 'USD'],
    ['kr', 'NO', 'NOK'],
    ['kr', 'DK', 'DKK'],
    ['kr', 'IS', 'ISK'],
    ['kr', undefined, 'SEK'],
    ['¥', 'CN', 'CNY'],
    ['¥', 'JP', 'JPY'],
    ['¥', undefined, 'JPY'],
    ['Rs. 500', 'PK', 'PKR'],
    ['Rs. 500', 'LK', 'LKR'],
    ['Rs. 500', undefined, 'INR'],
    ['Dhs 50', 'MA', 'MAD'],
  ])('reads %s in country %s as %s', (text, country, code) => {
    expect(findCurrencyMentions(text, country ? { country } : {})[0]?.code).toBe(code);
  });

  it('lets the country outrank the language for "kr"', () => {
    expect(parseCurrency('kr', { language: 'sv', country: 'NO' })).toBe('NOK');
  });
});

describe("the issue's list of signs and abbreviations, printed beside an amount", () => {
  it.each([
    ['RM 12.50', {}, 'MYR'],
    ['Rp 25.000', {}, 'IDR'],
    ['₹ 1,250.00', {}, 'INR'],
    ['Rs 1939', { country: 'IN' }, 'INR'],
    ['Rs 1,500', { country: 'PK' }, 'PKR'],
    ['Rs 2,400', { country: 'LK' }, 'LKR'],
    ['R$ 49,90', {}, 'BRL'],
    ['129,00 kr', { country: 'SE' }, 'SEK'],
    ['129,00 kr', { country: 'NO' }, 'NOK'],
    ['129,00 kr', { country: 'DK' }, 'DKK'],
    ['49,99 zł', {}, 'PLN'],
    ['1 290 Kč', {}, 'CZK'],
    ['12 500 Ft', {}, 'HUF'],
    ['₺ 350,00', {}, 'TRY'],
    ['₩ 15,000', {}, 'KRW'],
    ['¥ 1,200', { country: 'JP' }, 'JPY'],
    ['¥ 88.00', { country: 'CN' }, 'CNY'],
    ['S$ 8.50', {}, 'SGD'],
    ['HK$ 120.00', {}, 'HKD'],
    ['A$ 45.00', {}, 'AUD'],
    ['C$ 30.00', {}, 'CAD'],
    ['NZ$ 19.90', {}, 'NZD'],
    ['CHF 45.00', {}, 'CHF'],
    ['$ 12.00', { country: 'SG' }, 'SGD'],
  ])('finds %s as %s (country %j) ', (text, context, code) => {
    expect(findCurrencyMentions(text, context as { country?: string }).map((mention) => mention.code)).toEqual([code]);
  });
});
