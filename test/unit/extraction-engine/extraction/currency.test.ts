import { describe, expect, it } from 'vitest';
import { findCurrencyMentions, parseCurrency } from '../../../../src/extraction-engine/values/currency.ts';

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
