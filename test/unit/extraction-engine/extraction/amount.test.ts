import { describe, expect, it } from 'vitest';
import { findAmounts, parseAmount } from '../../../../src/extraction-engine/values/amount.ts';

describe('parseAmount', () => {
  it.each([
    ['1.234,56', 1234.56],
    ['1,234.56', 1234.56],
    ['1 234,56 €', 1234.56],
    ['1\u00a0234,56', 1234.56],
    ["1'234.50", 1234.5],
    ['€ 4.904,94', 4904.94],
    ['$4.11', 4.11],
    ['Rs 1939', 1939],
    ['316,83 PLN', 316.83],
    ['USD 1,000.00', 1000],
    ['12.345.678,90', 12345678.9],
    ['0,99', 0.99],
    ['1.000', 1000],
    ['9,9000', 9.9],
  ])('reads %s as %d', (text, expected) => {
    expect(parseAmount(text)).toBe(expected);
  });

  it.each([
    ['-8,79', -8.79],
    ['− 8,79', -8.79],
    ['(12.00)', -12],
    ['12.00-', -12],
    ['€ -5,00', -5],
  ])('reads the negative form %s', (text, expected) => {
    expect(parseAmount(text)).toBe(expected);
  });

  it.each([['abc'], ['12,34,5'], ['1.234.56'], ['12 and 13'], ['']])('rejects %j', (text) => {
    expect(parseAmount(text)).toBeUndefined();
  });
});

describe('findAmounts', () => {
  it('keeps table columns apart when no currency joins them', () => {
    const amounts = findAmounts('Total 1 278.61 40.39 319.00');
    expect(amounts.map((amount) => amount.value)).toEqual([1, 278.61, 40.39, 319]);
  });

  it('marks percentages and attaches currencies on either side', () => {
    const amounts = findAmounts('TVA 20% : 9,34 €');
    expect(amounts.map((amount) => [amount.value, amount.isPercentage, amount.currency])).toEqual([
      [20, true, undefined],
      [9.34, false, 'EUR'],
    ]);
  });

  it('gives a currency sign before a number to that number, not to the previous one', () => {
    const amounts = findAmounts('Tax 15% on $ 112.90 $ 16.94');
    expect(amounts.filter((amount) => !amount.isPercentage).map((amount) => [amount.value, amount.currency])).toEqual([
      [112.9, 'USD'],
      [16.94, 'USD'],
    ]);
  });

  it('does not read a currency-like word before a number as a currency', () => {
    expect(findAmounts('TVA 20 EUR')[0]?.currency).toBe('EUR');
    expect(findAmounts('ABC 20')[0]?.currency).toBeUndefined();
  });

  it('does not read dates or version numbers as amounts', () => {
    expect(findAmounts('Zahlungsziel 21.05.14')).toEqual([]);
    expect(findAmounts('v1.2.3')).toEqual([]);
  });

  it('does not read numbers joined by hyphens (phone numbers, dashed dates, codes) as amounts, and keeps signs and ranges', () => {
    expect(findAmounts('Customer Service 1-300-22-2623')).toEqual([]);
    expect(findAmounts('10-04-2018')).toEqual([]);
    expect(findAmounts('Transaction No: 1-494268')).toEqual([]);
    expect(findAmounts('Rabatt -8,79').map((amount) => amount.value)).toEqual([-8.79]);
    expect(findAmounts('Discount 12.00-').map((amount) => amount.value)).toEqual([-12]);
    expect(findAmounts('5.00 - 2.00').map((amount) => amount.value)).toEqual([5, -2]);
  });

  it('does not read whole numbers padded with zeros (identifiers) as amounts, but keeps padded amounts with cents', () => {
    expect(findAmounts('GST ID: 00038 1399040').map((amount) => amount.value)).toEqual([1399040]);
    expect(findAmounts('Terminal 007')).toEqual([]);
    expect(findAmounts('Amount 000123.45').map((amount) => amount.value)).toEqual([123.45]);
    expect(findAmounts('Total 0.38').map((amount) => amount.value)).toEqual([0.38]);
    expect(findAmounts('Qty 0').map((amount) => amount.value)).toEqual([0]);
  });

  it('reports decimals so callers can tell money from counts', () => {
    expect(findAmounts('3 items 12,50').map((amount) => amount.decimals)).toEqual([0, 2]);
  });
});

describe('till amounts whose decimal point OCR lost', () => {
  it('reads two digits after a space as the cents beside a currency sign', () => {
    expect(findAmounts('Total Sales RM 64 13').map((amount) => [amount.value, amount.currency])).toEqual([[64.13, 'MYR']]);
    expect(findAmounts('€ 12 50').map((amount) => amount.value)).toEqual([12.5]);
  });

  it('reads a letter O between a currency sign and the cents as a zero', () => {
    expect(findAmounts('Rounding Adjustment RM O 02').map((amount) => amount.value)).toEqual([0.02]);
    expect(findAmounts('Discount RM O.50').map((amount) => amount.value)).toEqual([0.5]);
    expect(findAmounts('ROOM O 12').map((amount) => amount.value)).toEqual([12]);
  });

  it('reads a gap OCR put after the decimal point beside a currency sign as no gap, over the amount\'s whole span', () => {
    const [amount] = findAmounts('CASH RM152. 00');
    expect([amount?.value, amount?.currency, amount?.index, amount?.length]).toEqual([152, 'MYR', 5, 9]);
    expect(findAmounts('Total: € 12, 50').map((found) => found.value)).toEqual([12.5]);
    expect(parseAmount('RM152. 00')).toBe(152);
    expect(parseAmount('RMO. 00')).toBe(0);
    // Without a sign, or with more than two digits after the gap, the gap separates two numbers.
    expect(findAmounts('Qty 12. 50').map((found) => found.value)).toEqual([12, 50]);
    expect(findAmounts('RM12. 345').map((found) => found.value)).toEqual([12, 345]);
  });

  it('reads a gap beside the decimal point as no gap in an amount alone in its column, or ending a labelled line with the point standing free', () => {
    expect(findAmounts('-50. 00').map((found) => [found.value, found.decimals, found.text])).toEqual([[-50, 2, '-50. 00']]);
    const [total] = findAmounts('Grand Total 39 . 00');
    expect([total?.value, total?.decimals, total?.index, total?.length]).toEqual([39, 2, 12, 7]);
    // A row of figures, or a label with the gap on one side only, keeps its numbers apart.
    expect(findAmounts('2 x 3 . 50').map((found) => found.value)).toEqual([2, 3, 50]);
    expect(findAmounts('Qty 12. 50').map((found) => found.value)).toEqual([12, 50]);
  });

  it('reads an underscore OCR put for a gap as a gap, keeping the position of the amount', () => {
    const [amount] = findAmounts('<RM_34.80 >');
    expect([amount?.value, amount?.currency, amount?.index]).toEqual([34.8, 'MYR', 1]);
  });

  it('reads two digits after a space as the cents of a number alone in its column', () => {
    expect(findAmounts('41 50').map((amount) => [amount.value, amount.decimals])).toEqual([[41.5, 2]]);
  });

  it('keeps numbers apart that no currency sign joins, and three-digit groups as thousands', () => {
    expect(findAmounts('Qty 2 15.00').map((amount) => amount.value)).toEqual([2, 15]);
    expect(findAmounts('Table 12 50').map((amount) => amount.value)).toEqual([12, 50]);
    expect(findAmounts('EUR 1 234,56').map((amount) => amount.value)).toEqual([1234.56]);
  });
});
