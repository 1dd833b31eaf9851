import { describe, expect, it } from 'vitest';
import { embeddedFieldsNotOnPage, printedAmounts } from '../../../../src/extraction-engine/readers/embedded-invoice-check.ts';

describe('printedAmounts', () => {
  it('lists the usual ways of printing an amount', () => {
    expect(printedAmounts(1589.8)).toEqual(['1589.80', '1589,80', '1,589.80', '1.589,80', "1'589.80", '1’589.80']);
    expect(printedAmounts(-8.79)).toEqual(['8.79', '8,79']);
  });
});

describe('embeddedFieldsNotOnPage', () => {
  const invoice = { syntax: 'CII' as const, values: { invoice_number: 'RE 2024/17', total_amount: 1589.8, currency: 'EUR' } };

  it('confirms values printed with other spacing and number formatting', () => {
    expect(embeddedFieldsNotOnPage(invoice, 'Rechnung RE 2024 / 17\nGesamtbetrag 1 589,80 EUR')).toEqual([]);
  });

  it('names the fields whose embedded value is not on the page', () => {
    expect(embeddedFieldsNotOnPage(invoice, 'Rechnung RE 2024/18\nGesamtbetrag 1.589,80 EUR')).toEqual(['invoice_number']);
    expect(embeddedFieldsNotOnPage(invoice, 'Invoice 42, total 119.00')).toEqual(['invoice_number', 'total_amount']);
  });

  it('checks only fields the XML has', () => {
    expect(embeddedFieldsNotOnPage({ syntax: 'UBL', values: { currency: 'EUR' } }, 'anything')).toEqual([]);
  });
});
