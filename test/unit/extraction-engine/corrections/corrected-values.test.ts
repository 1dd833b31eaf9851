import { describe, expect, it } from 'vitest';
import { checkCorrectedValue, defaultExtractionConfiguration, type ExtractionConfiguration } from '../../../../src/extraction-engine/index.ts';
import { parseExtractionConfiguration } from '../../../../src/extraction-engine/configuration-text.ts';

// A reviewer's value is checked against the field as the workspace's document type defines it, and
// normalized the way the engine writes that type.

function configuration(yaml: string): ExtractionConfiguration {
  const parsed = parseExtractionConfiguration(yaml);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.configuration;
}

const orders = configuration(`
documentTypes:
  - docType: purchase_order
    fields:
      - { name: status, type: enum, values: [open, paid], labels: { en: [Status] } }
      - { name: ordered_on, type: date, labels: { en: [Date] } }
      - name: lines
        type: table
        columns:
          - { name: item, type: string, headerLabels: { en: [Item] } }
          - { name: count, type: integer, headerLabels: { en: [Count] } }
          - { name: price, type: amount, headerLabels: { en: [Price] }, role: line-total }
`);

const invoiceField = (name: string, type: string) => ({ docType: 'invoice', name, type });

describe('checkCorrectedValue', () => {
  it.each([
    ['amount', 'total_amount', 1190.5, 1190.5],
    ['date', 'issue_date', '2024-03-15', '2024-03-15'],
    ['currency', 'currency', 'eur', 'EUR'],
    ['iban', 'iban', 'de89 3704 0044 0532 0130 00', 'DE89370400440532013000'],
    ['string', 'invoice_number', '  INV-7 ', 'INV-7'],
  ])('accepts and normalizes a %s (%s)', (type, name, value, normalized) => {
    expect(checkCorrectedValue(defaultExtractionConfiguration, invoiceField(name, type), value)).toEqual({ ok: true, value: normalized });
  });

  it('accepts null: the document does not show the field', () => {
    expect(checkCorrectedValue(defaultExtractionConfiguration, invoiceField('due_date', 'date'), null)).toEqual({ ok: true, value: null });
  });

  it.each([
    ['amount', 'total_amount', '1.190,50', 'must be a number'],
    ['date', 'issue_date', '15/03/2024', 'YYYY-MM-DD'],
    ['date', 'issue_date', '2024-02-30', 'not a valid date'],
    ['currency', 'currency', '€', 'ISO 4217'],
    ['currency', 'currency', 'XYZ', 'not a valid currency'],
    ['iban', 'iban', 'DE00 3704 0044 0532 0130 00', 'check digits'],
    ['string', 'invoice_number', '   ', 'must not be empty'],
    ['integer', 'line_item_count', 2.5, 'whole number'],
  ])('refuses a %s that is not one (%s = %j)', (type, name, value, issue) => {
    const checked = checkCorrectedValue(defaultExtractionConfiguration, invoiceField(name, type), value);

    expect(checked).toEqual({ ok: false, issues: [{ path: [], issue: expect.stringContaining(issue) }] });
  });

  it('takes an enum value only from the definition\'s values, in their spelling', () => {
    const field = { docType: 'purchase_order', name: 'status', type: 'enum' };

    expect(checkCorrectedValue(orders, field, 'PAID')).toEqual({ ok: true, value: 'paid' });
    expect(checkCorrectedValue(orders, field, 'late')).toEqual({ ok: false, issues: [{ path: [], issue: 'must be one of open, paid.' }] });
  });

  it('checks each row of a table against the columns and their types, naming every bad cell', () => {
    const field = { docType: 'purchase_order', name: 'lines', type: 'table' };

    const good = checkCorrectedValue(orders, field, [{ item: ' Bolts ', count: 3, price: 4.5 }, { item: 'Nuts' }]);
    const bad = checkCorrectedValue(orders, field, [{ item: 'Bolts', count: 1.5 }, 'row', {}, { colour: 'red', price: '4' }]);

    expect(good).toEqual({ ok: true, value: [{ item: 'Bolts', count: 3, price: 4.5 }, { item: 'Nuts' }] });
    expect(bad).toEqual({
      ok: false,
      issues: [
        { path: [0, 'count'], issue: 'must be a whole number (column type integer).' },
        { path: [1], issue: 'must be an object of the row\'s columns.' },
        { path: [2], issue: 'must have at least one column.' },
        { path: [3, 'colour'], issue: 'is not a column of lines (columns: item, count, price).' },
        { path: [3, 'price'], issue: 'must be a number (column type amount).' },
      ],
    });
    expect(checkCorrectedValue(orders, field, { item: 'x' })).toMatchObject({ ok: false, issues: [{ path: [], issue: expect.stringContaining('list of rows') }] });
  });

  it('checks the prebuilt invoice\'s line items by their columns', () => {
    const checked = checkCorrectedValue(defaultExtractionConfiguration, invoiceField('line_items', 'table'), [{ description: 'Chair', quantity: 2, amount: 140 }]);

    expect(checked).toEqual({ ok: true, value: [{ description: 'Chair', quantity: 2, amount: 140 }] });
  });

  it('refuses an enum or table field the configuration no longer defines, and checks other types by type alone', () => {
    expect(checkCorrectedValue(defaultExtractionConfiguration, { docType: 'purchase_order', name: 'status', type: 'enum' }, 'open')).toMatchObject({ ok: false });
    expect(checkCorrectedValue(defaultExtractionConfiguration, { docType: 'purchase_order', name: 'lines', type: 'table' }, [])).toMatchObject({ ok: false });
    expect(checkCorrectedValue(defaultExtractionConfiguration, { docType: 'purchase_order', name: 'ordered_on', type: 'date' }, '2024-01-31')).toEqual({ ok: true, value: '2024-01-31' });
  });
});
