// The item table on synthetic layouts (none of them in the corpus): each rule of the row builder and
// of the arithmetic fails here without it.

import { describe, expect, it } from 'vitest';
import { defaultExtractionConfiguration } from '../../../../src/extraction-engine/configuration/parse-extraction-configuration.ts';
import { extractDocument, type ExtractedField } from '../../../../src/extraction-engine/extract-document.ts';
import { extractFields } from '../../../../src/extraction-engine/fields/extract-fields.ts';
import { rowAddsUp, tableArithmetic, TABLE_DOES_NOT_ADD_UP } from '../../../../src/extraction-engine/fields/table-arithmetic.ts';
import type { ExtractedTable } from '../../../../src/extraction-engine/fields/table-specification.ts';
import { invoiceSpecification } from '../../../../src/extraction-engine/prebuilt/prebuilt-document-types.ts';
import { placedDocument, type PlacedText, type Row } from './read-document-builder.ts';

const X = { code: 0.08, description: 0.2, quantity: 0.5, price: 0.62, tax: 0.74, amount: 0.86 };

function tableOf(pages: Row[][], language = 'en'): ExtractedTable | undefined {
  return extractFields(placedDocument(pages, { language }), invoiceSpecification).fields.find((result) => result.name === 'line_items')?.table;
}

function countOf(pages: Row[][], language = 'en'): unknown {
  return extractFields(placedDocument(pages, { language }), invoiceSpecification).fields.find((result) => result.name === 'line_item_count')?.value;
}

const item = (description: string, quantity: string, price: string, amount: string): Row => [
  { text: description, x: X.description },
  { text: quantity, x: X.quantity },
  { text: price, x: X.price },
  { text: amount, x: X.amount },
];

describe('header bands in the five languages', () => {
  const headers: Record<string, Row> = {
    en: [{ text: 'Description', x: X.description }, { text: 'Qty', x: X.quantity }, { text: 'Unit price', x: X.price }, { text: 'Amount', x: X.amount }],
    de: [{ text: 'Bezeichnung', x: X.description }, { text: 'Menge', x: X.quantity }, { text: 'Einzelpreis', x: X.price }, { text: 'Betrag', x: X.amount }],
    fr: [{ text: 'Désignation', x: X.description }, { text: 'Qté', x: X.quantity }, { text: 'Prix unitaire', x: X.price }, { text: 'Montant', x: X.amount }],
    nl: [{ text: 'Omschrijving', x: X.description }, { text: 'Aantal', x: X.quantity }, { text: 'Prijs', x: X.price }, { text: 'Bedrag', x: X.amount }],
    pl: [{ text: 'Nazwa', x: X.description }, { text: 'Ilość', x: X.quantity }, { text: 'Cena', x: X.price }, { text: 'Wartość', x: X.amount }],
  };
  for (const [language, header] of Object.entries(headers)) {
    it(`reads the rows under a ${language} header, each value in its column`, () => {
      const comma = language !== 'en';
      const money = (value: string): string => (comma ? value.replace('.', ',') : value);
      const table = tableOf([['Invoice 1', header, item('Widget blue', '3', money('2.50'), money('7.50')), item('Gadget', '1', money('10.00'), money('10.00'))]], language);
      expect(table?.rows.map((row) => row.values)).toEqual([
        { description: 'Widget blue', quantity: 3, unit_price: 2.5, amount: 7.5 },
        { description: 'Gadget', quantity: 1, unit_price: 10, amount: 10 },
      ]);
    });
  }

  it('gives every row and cell a box on its page, and the table its region', () => {
    const header: Row = [{ text: 'Description', x: X.description }, { text: 'Qty', x: X.quantity }, { text: 'Amount', x: X.amount }];
    const table = tableOf([['Invoice 1', header, [{ text: 'Widget', x: X.description }, { text: '2', x: X.quantity }, { text: '5.00', x: X.amount }]]]);
    const row = table?.rows[0];
    expect(row?.pageNumber).toBe(1);
    expect(row?.cells.amount?.placement?.x).toBeCloseTo(X.amount, 3);
    expect(row?.cells.quantity?.placement?.x).toBeCloseTo(X.quantity, 3);
    expect(row?.placement?.x).toBeCloseTo(X.description, 3);
    expect(table?.placement?.y).toBeLessThan(row!.placement!.y);
  });
});

describe('rows', () => {
  const header: Row = [{ text: 'Description', x: X.description }, { text: 'Qty', x: X.quantity }, { text: 'Price', x: X.price }, { text: 'Amount', x: X.amount }];

  it('joins a second description line tight under its row to that row', () => {
    const table = tableOf([['Invoice 1', header, item('Cable 3 m', '2', '4.00', '8.00'), { text: 'shielded, black', x: X.description }, item('Plug', '1', '1.00', '1.00')]]);
    expect(table?.rows.map((row) => row.values.description)).toEqual(['Cable 3 m shielded, black', 'Plug']);
  });

  it('leaves out section titles, subtotals and carried-forward lines, and ends at the totals', () => {
    const page: Row[] = [
      'Invoice 1',
      header,
      '',
      { text: 'Hardware', x: X.description },
      item('Cable', '2', '4.00', '8.00'),
      [{ text: 'Subtotal', x: X.price }, { text: '8.00', x: X.amount }],
      '',
      { text: 'Services', x: X.description },
      item('Setup', '1', '20.00', '20.00'),
      [{ text: 'Carried forward', x: X.description }, { text: '28.00', x: X.amount }],
      item('Support', '2', '5.00', '10.00'),
      [{ text: 'Total', x: X.price }, { text: '38.00', x: X.amount }],
      [{ text: 'Bank fee', x: X.description }, { text: '1.00', x: X.amount }],
    ];
    expect(tableOf([page])?.rows.map((row) => row.values.description)).toEqual(['Cable', 'Setup', 'Support']);
  });

  it('continues on the next page under a repeated header and without one', () => {
    const first: Row[] = ['Invoice 1', header, item('Cable', '2', '4.00', '8.00')];
    const repeated: Row[] = ['Invoice 1, page 2', header, item('Plug', '1', '1.00', '1.00'), [{ text: 'Total', x: X.price }, { text: '9.00', x: X.amount }]];
    const bare: Row[] = ['Invoice 1, page 2', item('Plug', '1', '1.00', '1.00'), [{ text: 'Total', x: X.price }, { text: '9.00', x: X.amount }]];
    for (const second of [repeated, bare]) {
      const table = tableOf([first, second]);
      expect(table?.rows.map((row) => [row.values.description, row.pageNumber])).toEqual([
        ['Cable', 1],
        ['Plug', 2],
      ]);
    }
  });

  it('does not take the lines under another list\'s header on the next page (no line-total column) for items unless they are priced', () => {
    const first: Row[] = ['Invoice 1', header, item('Cable', '2', '4.00', '8.00')];
    const partsHeader: Row = [{ text: 'Code', x: X.code }, { text: 'Description', x: X.description }, { text: 'Qty', x: X.quantity }];
    const second: Row[] = ['Invoice 1, page 2', partsHeader, [{ text: 'C-12', x: X.code }, { text: 'Connector', x: X.description }, { text: '2', x: X.quantity }], '', [{ text: 'Freight', x: X.code }, { text: '19 %', x: X.quantity }, { text: '3.00', x: X.amount }]];
    expect(tableOf([first, second])?.rows.map((row) => row.values.amount)).toEqual([8]);
  });

  it('does not take a continuation page\'s other list (no quantity or price) for items', () => {
    const first: Row[] = ['Invoice 1', header, item('Cable', '2', '4.00', '8.00')];
    const second: Row[] = ['Allowances', [{ text: 'Early payment', x: X.description }, { text: '0.50', x: X.amount }], [{ text: 'Total', x: X.price }, { text: '7.50', x: X.amount }]];
    expect(countOf([first, second])).toBe(1);
  });

  it('keeps a returned item (negative, with a quantity) and leaves out allowance and charge lines', () => {
    const page: Row[] = [
      'Invoice 1',
      header,
      item('Cable', '-2', '4.00', '-8.00'),
      [{ text: 'Discount 10 %', x: X.description }, { text: '-0.80', x: X.amount }],
      item('Plug', '1', '1.00', '1.00'),
      item('Surcharge express delivery', '1', '5.00', '5.00'),
    ];
    expect(tableOf([page])?.rows.map((row) => row.values.amount)).toEqual([-8, 1]);
  });

  it('does not join a bundle part printed with its own quantity to the name above', () => {
    const page: Row[] = ['Invoice 1', header, item('Camera kit', '1', '400.00', '400.00'), [{ text: 'Camera body', x: X.description + 0.03 }, { text: '1', x: X.quantity }], item('Tripod', '1', '25.00', '25.00')];
    expect(tableOf([page])?.rows.map((row) => row.values.description)).toEqual(['Camera kit', 'Tripod']);
  });

  it('never takes a totals line for an item, even when no item line printed its amount in the line-total band', () => {
    const netAndGross: Row = [{ text: 'Description', x: X.description }, { text: 'Price', x: X.quantity }, { text: 'Amount', x: X.price }, { text: 'VAT', x: X.tax }];
    const page: Row[] = ['Invoice 1', netAndGross, [{ text: 'Monthly plan', x: X.description }, { text: '11.99', x: X.amount }], [{ text: 'Total invoice', x: X.description }, { text: '9.99', x: X.price }, { text: '11.99', x: X.amount }]];
    expect(tableOf([page])?.rows.map((row) => row.values.description) ?? []).not.toContain(undefined);
    expect(tableOf([page])?.rows.map((row) => row.values.amount) ?? []).not.toContain(9.99);
  });

  it('keeps a number that closes a long description in it where it runs into the price band beside the price', () => {
    const priceFirst: Row = [{ text: 'Description', x: X.description }, { text: 'Price', x: 0.5 }, { text: 'Qty', x: X.tax }, { text: 'Amount', x: X.amount }];
    const row: Row = [{ text: 'Yoghurt tray assorted flavours 3', x: X.description }, { text: '29.10', x: 0.52 }, { text: '2', x: X.tax }, { text: '58.20', x: X.amount }];
    expect(tableOf([['Invoice 1', priceFirst, row]])?.rows[0]?.values).toEqual({ description: 'Yoghurt tray assorted flavours 3', unit_price: 29.1, quantity: 2, amount: 58.2 });
  });

  it('keeps the words of a long description that runs under the quantity header in the description', () => {
    const page: Row[] = ['Invoice 1', header, item('Artificial turf green, 3 metres wide', '3', '4.00', '12.00')];
    expect(tableOf([page])?.rows[0]?.values).toEqual({ description: 'Artificial turf green, 3 metres wide', quantity: 3, unit_price: 4, amount: 12 });
  });

  it('takes no row from a line opened by a label ("of which:") or printing nothing but a sum word and a total', () => {
    const page: Row[] = [
      'Invoice 1',
      header,
      item('Cable', '2', '4.00', '8.00'),
      [{ text: 'Items total', x: X.quantity - 0.02 }, { text: '8.00', x: X.amount }],
      [{ text: 'of which:', x: X.description }, { text: '2', x: X.quantity }, { text: '4.00', x: X.price }, { text: '8.00', x: X.amount }],
    ];
    expect(tableOf([page])?.rows.map((row) => row.values.description)).toEqual(['Cable']);
  });

  it('does not take a discount rate in the price column for a price (a negative line stays an allowance)', () => {
    const page: Row[] = ['Invoice 1', header, item('Cable', '2', '4.00', '8.00'), [{ text: 'less', x: X.description }, { text: '10%', x: X.price }, { text: '-0.80', x: X.amount }]];
    expect(countOf([page])).toBe(1);
  });

  it('does not end at a tax rate printed inside an item ("Tax: 0.2%")', () => {
    const page: Row[] = ['Invoice 1', header, item('Repair', '1', '10.00', '10.00'), { text: 'Tax: 0.2%', x: X.description }, item('Cleaning', '1', '5.00', '5.00'), [{ text: 'Total:', x: X.price }, { text: '15.00', x: X.amount }]];
    expect(countOf([page])).toBe(2);
  });

  it('splits "2 pcs" into quantity and unit, and a bracketed code off the description', () => {
    const page: Row[] = ['Invoice 1', header, item('[AB-12] Hinge', '2 pcs', '3.00', '6.00')];
    expect(tableOf([page])?.rows[0]?.values).toEqual({ product_code: 'AB-12', description: 'Hinge', quantity: 2, unit: 'pcs', unit_price: 3, amount: 6 });
  });

  it('reads a header split over two lines ("Positions-" / "betrag") and a unit column', () => {
    const top: Row = [{ text: 'Beschreibung', x: X.description }, { text: 'Menge', x: X.quantity }, { text: 'ME', x: X.quantity + 0.06 }, { text: 'Preis', x: X.price + 0.02 }, { text: 'Positions-', x: X.amount }];
    const bottom: Row = { text: 'betrag', x: X.amount + 0.02 };
    const row: Row = [{ text: 'Schrauben', x: X.description }, { text: '100', x: X.quantity }, { text: 'Stk', x: X.quantity + 0.06 }, { text: '0,10', x: X.price + 0.02 }, { text: '10,00', x: X.amount }];
    expect(tableOf([['Rechnung 1', top, bottom, row]], 'de')?.rows[0]?.values).toEqual({ description: 'Schrauben', quantity: 100, unit: 'Stk', unit_price: 0.1, amount: 10 });
  });

  it('reads a wholesale header (article number, pack size, sales price, net value) with the pack size kept out of the price', () => {
    const header: Row = [{ text: 'Art-Nr-Lieferant', x: 0.1 }, { text: 'Menge', x: 0.36 }, { text: 'VKE/Geb', x: 0.46 }, { text: 'VK-Preis', x: 0.56 }, { text: 'MwSt-%', x: 0.7 }, { text: 'Nettowert', x: 0.84 }];
    const row: Row = [{ text: 'KL-204', x: 0.1 }, { text: '120,0000 Stk.', x: 0.32 }, { text: '24', x: 0.5 }, { text: '0,2500', x: 0.57 }, { text: '19,0', x: 0.71 }, { text: '30,00', x: 0.86 }];
    expect(tableOf([['Rechnung 1', header, row]], 'de')?.rows[0]?.values).toEqual({ product_code: 'KL-204', quantity: 120, unit: 'Stk.', unit_price: 0.25, tax_rate: 19, amount: 30 });
  });

  it('takes a rate header printed on the line under the header, beyond its width, when rates stand under it, and keeps the rates out of the amount', () => {
    const header: Row = [{ text: 'Artikel', x: 0.1 }, { text: 'Menge', x: 0.46 }, { text: 'Preis', x: 0.6 }, { text: 'Betrag', x: 0.74 }];
    const rateHeader: Row = { text: 'MwSt. %', x: 0.88 };
    const rows: Row[] = [
      [{ text: 'Kabeltrommel', x: 0.1 }, { text: '4', x: 0.47 }, { text: '12,50', x: 0.6 }, { text: '50,00', x: 0.74 }, { text: '19', x: 0.89 }],
      [{ text: 'Apfelsaft', x: 0.1 }, { text: '6', x: 0.47 }, { text: '1,20', x: 0.6 }, { text: '7,20', x: 0.74 }, { text: '7', x: 0.9 }],
    ];
    const table = tableOf([['Rechnung 1', header, rateHeader, ...rows]], 'de');
    expect(table?.rows.map((row) => row.values)).toEqual([
      { description: 'Kabeltrommel', quantity: 4, unit_price: 12.5, tax_rate: 19, amount: 50 },
      { description: 'Apfelsaft', quantity: 6, unit_price: 1.2, tax_rate: 7, amount: 7.2 },
    ]);
  });

  it('reads the header line above the header even where text in the page margin beside it prints a year', () => {
    const top: Row = [{ text: '2019', x: 0.02 }, { text: 'Menge', x: 0.46 }, { text: 'Preis/', x: X.price }];
    const header: Row = [{ text: 'Pos', x: 0.08 }, { text: 'Artikelbeschreibung', x: X.description }, { text: 'Einheit', x: 0.54 }, { text: 'Einheit', x: X.price }, { text: 'Betrag', x: X.amount }];
    const row: Row = [{ text: '1', x: 0.08 }, { text: 'Ordner blau', x: X.description }, { text: '20', x: 0.47 }, { text: 'Stk.', x: 0.54 }, { text: '2,50', x: X.price }, { text: '50,00', x: X.amount }];
    expect(tableOf([['Rechnung 1', top, header, row]], 'de')?.rows[0]?.values).toEqual({ description: 'Ordner blau', quantity: 20, unit: 'Stk.', unit_price: 2.5, amount: 50 });
  });

  it('reads header words that name their unit or currency in brackets ("Price(₹)", "VAT(%)", "Total(€)")', () => {
    const header: Row = [{ text: 'Item', x: X.description }, { text: 'Qty', x: X.quantity }, { text: 'Price(₹)', x: X.price }, { text: 'VAT(%)', x: X.tax }, { text: 'Total', x: X.amount }, { text: '(₹)', x: X.amount + 0.05 }];
    const table = tableOf([['Invoice 1', header, [{ text: 'Desk fan', x: X.description }, { text: '2', x: X.quantity }, { text: '450.00', x: X.price }, { text: '18%', x: X.tax }, { text: '900.00', x: X.amount }]]]);
    expect(table?.rows[0]?.values).toEqual({ description: 'Desk fan', quantity: 2, unit_price: 450, tax_rate: 18, amount: 900 });
  });

  it('counts the line items as the rows of the table', () => {
    const page: Row[] = ['Invoice 1', header, item('Cable', '2', '4.00', '8.00'), item('Plug', '1', '1.00', '1.00')];
    expect(countOf([page])).toBe(2);
    expect(countOf([['Invoice 1', 'No table here', 'Total 9.00']])).toBeUndefined();
  });
});

describe('arithmetic as evidence', () => {
  const header: Row = [{ text: 'Description', x: X.description }, { text: 'Qty', x: X.quantity }, { text: 'Price', x: X.price }, { text: 'Disc.%', x: X.tax }, { text: 'Amount', x: X.amount }];

  it('checks quantity × unit price less the printed discount against the amount', () => {
    expect(rowAddsUp({ quantity: 3, unitPrice: 2.5, lineTotal: 7.5 })).toBe(true);
    expect(rowAddsUp({ quantity: 1, unitPrice: 1, discount: 10, lineTotal: 0.9 })).toBe(true);
    expect(rowAddsUp({ quantity: 3, unitPrice: 2.5, lineTotal: 8.5 })).toBe(false);
    expect(rowAddsUp({ quantity: 3, lineTotal: 8.5 })).toBeUndefined();
  });

  it('raises rows that add up and whose sum is the net, lowers a row that does not', () => {
    const page: Row[] = [
      'Invoice 1',
      header,
      [{ text: 'Oil', x: X.description }, { text: '1', x: X.quantity }, { text: '1.00', x: X.price }, { text: '10.00', x: X.tax }, { text: '0.90', x: X.amount }],
      item('Cable', '2', '4.00', '9.00'),
      [{ text: 'Net amount', x: X.price }, { text: '9.90', x: X.amount }],
    ];
    const table = tableOf([page]);
    expect(table?.rows.map((row) => row.values)).toEqual([
      { description: 'Oil', quantity: 1, unit_price: 1, amount: 0.9 },
      { description: 'Cable', quantity: 2, unit_price: 4, amount: 9 },
    ]);
    expect(table?.rows[0]?.confidence).toBeGreaterThanOrEqual(0.9);
    expect(table?.rows[1]?.confidence).toBeLessThan(0.5);
  });

  it("takes a discount printed on the line under a row off that row's amount when its percentage of the row gives it, and the rows then add up", () => {
    const german: Row = [{ text: 'Bezeichnung', x: X.description }, { text: 'Menge', x: X.quantity }, { text: 'Preis', x: X.price }, { text: 'Betrag', x: X.amount }];
    const page: Row[] = [
      'Rechnung 7',
      german,
      item('Gartenschlauch 20 m', '2', '15,00', '30,00'),
      [{ text: 'abzgl. 15% Rabatt', x: X.description }, { text: '-4,50', x: X.amount }],
      item('Regentonne', '1', '40,00', '40,00'),
      [{ text: 'Zwischensumme', x: X.price }, { text: '65,50', x: X.amount }],
    ];
    const table = tableOf([page], 'de');
    expect(table?.rows.map((row) => row.values)).toEqual([
      { description: 'Gartenschlauch 20 m', quantity: 2, unit_price: 15, amount: 25.5 },
      { description: 'Regentonne', quantity: 1, unit_price: 40, amount: 40 },
    ]);
    expect(table?.rows[0]?.confidence).toBeGreaterThanOrEqual(0.9);
    expect(table?.confidence).toBeGreaterThanOrEqual(0.9);
    // A discount whose percentage is of the whole table, not of the row above it, leaves the row as printed.
    const wholeTable: Row[] = [
      'Rechnung 8',
      german,
      item('Gartenschlauch 20 m', '2', '15,00', '30,00'),
      item('Regentonne', '1', '40,00', '40,00'),
      [{ text: 'abzgl. 10% Rabatt', x: X.description }, { text: '-7,00', x: X.amount }],
      [{ text: 'Zwischensumme', x: X.price }, { text: '63,00', x: X.amount }],
    ];
    expect(tableOf([wholeTable], 'de')?.rows.map((row) => row.values.amount)).toEqual([30, 40]);
  });

  it('does not read a charge added under the subtotal ("zzgl. Versandkosten") as an item after it', () => {
    const german: Row = [{ text: 'Bezeichnung', x: X.description }, { text: 'Menge', x: X.quantity }, { text: 'Preis', x: X.price }, { text: 'Betrag', x: X.amount }, { text: 'USt. %', x: 0.95 }];
    const page: Row[] = [
      'Rechnung 9',
      german,
      [{ text: 'Blumenerde 40 l', x: X.description }, { text: '3', x: X.quantity }, { text: '6,00', x: X.price }, { text: '18,00', x: X.amount }, { text: '7', x: 0.95 }],
      [{ text: 'Zwischensumme', x: X.description }, { text: '18,00', x: X.amount }],
      [{ text: 'zzgl. Versandkosten', x: X.description }, { text: '4,90', x: X.amount }, { text: '19', x: 0.95 }],
      [{ text: 'Nettobetrag', x: X.description }, { text: '22,90', x: X.amount }],
      [{ text: 'Umsatzsteuer', x: X.description }, { text: '2,19', x: X.amount }],
      [{ text: 'Gesamtbetrag', x: X.description }, { text: '25,09', x: X.amount }],
    ];
    const table = tableOf([page], 'de');
    expect(table?.rows.map((row) => row.values.description)).toEqual(['Blumenerde 40 l']);
    // The table closes at the subtotal, which its rows add up to.
    expect(table?.confidence).toBeGreaterThanOrEqual(0.9);
  });

  it('reports a table whose rows do not add up to the printed total at low confidence', () => {
    expect(tableArithmetic([{ lineTotal: 5 }, { lineTotal: 6 }], [12]).table).toBe(TABLE_DOES_NOT_ADD_UP);
    const adding: Row[] = ['Invoice 1', header, item('Cable', '2', '4.00', '8.00'), [{ text: 'Total', x: X.price }, { text: '8.00', x: X.amount }]];
    const missingRow: Row[] = ['Invoice 1', header, item('Cable', '2', '4.00', '8.00'), [{ text: 'Total', x: X.price }, { text: '9.00', x: X.amount }]];
    expect(tableOf([adding])?.confidence).toBeGreaterThanOrEqual(0.9);
    expect(tableOf([missingRow])?.confidence).toBeLessThan(0.5);
  });
});

describe('the line that closes the table', () => {
  it('counts as a sum the rows must add up to (a subtotal before a discount)', () => {
    const header: Row = [{ text: 'Description', x: X.description }, { text: 'Qty', x: X.quantity }, { text: 'Price', x: X.price }, { text: 'Amount', x: X.amount }];
    const page: Row[] = [
      'Invoice 1',
      header,
      [{ text: 'Cable', x: X.description }, { text: '2', x: X.quantity }, { text: '4.00', x: X.price }, { text: '8.00', x: X.amount }],
      [{ text: 'Plug', x: X.description }, { text: '1', x: X.quantity }, { text: '1.00', x: X.price }, { text: '1.00', x: X.amount }],
      [{ text: 'Subtotal', x: X.price }, { text: '9.00', x: X.amount }],
      [{ text: 'Discount', x: X.price }, { text: '-1.00', x: X.amount }],
      [{ text: 'Net amount', x: X.price }, { text: '8.00', x: X.amount }],
      [{ text: 'VAT 20%', x: X.price }, { text: '1.60', x: X.amount }],
      [{ text: 'Total', x: X.price }, { text: '9.60', x: X.amount }],
    ];
    const table = tableOf([page]);
    expect(table?.rows).toHaveLength(2);
    expect(table?.confidence).toBeGreaterThanOrEqual(0.9);
  });
});

describe('output shape', () => {
  it('returns the rows as the value of a table field with metadata.rows, and the count beside it', () => {
    const header: Row = [{ text: 'Description', x: X.description }, { text: 'Qty', x: X.quantity }, { text: 'Price', x: X.price }, { text: 'Amount', x: X.amount }];
    const document = placedDocument([['INVOICE', 'Invoice number: 7', header, item('Cable', '2', '4.00', '8.00'), [{ text: 'Total', x: X.price }, { text: '8.00', x: X.amount }]]], { language: 'en' });
    const outcome = extractDocument(document, { configuration: defaultExtractionConfiguration, createFieldId: () => 'fld_test' });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    const field = outcome.fields.find((candidate) => candidate.name === 'line_items') as ExtractedField;
    expect(field.type).toBe('table');
    expect(field.value).toEqual([{ description: 'Cable', quantity: 2, unit_price: 4, amount: 8 }]);
    expect(field.metadata.rows?.[0]).toMatchObject({ page: 1, confidence: expect.any(Number), cells: { amount: { confidence: expect.any(Number), placement: expect.any(Object) } } });
    expect(outcome.fields.find((candidate) => candidate.name === 'line_item_count')?.value).toBe(1);
  });

  it('takes the rows of an embedded e-invoice exactly, with the boxes of the page rows, and flags rows the page does not show', () => {
    const header: Row = [{ text: 'Description', x: X.description }, { text: 'Qty', x: X.quantity }, { text: 'Price', x: X.price }, { text: 'Amount', x: X.amount }];
    const rows: Row[] = ['INVOICE', 'Invoice number: 7', header, item('Cable', '2', '4.00', '8.00'), [{ text: 'Total', x: X.price }, { text: '8.00', x: X.amount }]];
    const embedded = (amount: number) => ({
      syntax: 'CII' as const,
      values: { invoice_number: '7', total_amount: 8, line_item_count: 1 },
      lineItems: [{ description: 'Cable, shielded', quantity: 2, unit: 'C62', unit_price: 4, amount }],
    });
    const agreeing = extractDocument(placedDocument([rows], { language: 'en', embeddedInvoice: embedded(8) }), { configuration: defaultExtractionConfiguration });
    if (agreeing.status !== 'COMPLETED') throw new Error(agreeing.message);
    const field = agreeing.fields.find((candidate) => candidate.name === 'line_items');
    expect(field?.value).toEqual([{ description: 'Cable, shielded', quantity: 2, unit: 'C62', unit_price: 4, amount: 8 }]);
    expect(field?.metadata.rows?.[0]?.confidence).toBe(1);
    expect(field?.metadata.rows?.[0]?.cells.amount?.placement?.x).toBeCloseTo(X.amount, 3);
    expect(agreeing.warnings).toBeUndefined();

    const disagreeing = extractDocument(placedDocument([rows], { language: 'en', embeddedInvoice: embedded(7) }), { configuration: defaultExtractionConfiguration });
    if (disagreeing.status !== 'COMPLETED') throw new Error(disagreeing.message);
    expect(disagreeing.warnings?.map((warning) => warning.code)).toEqual(['EMBEDDED_INVOICE_CONFLICT']);
    expect(disagreeing.fields.find((candidate) => candidate.name === 'line_items')?.metadata.rows?.[0]?.confidence).toBeLessThan(1);
  });
});

describe('a name printed on its own line above the row', () => {
  it('names a row that prints nothing in the description column from the text line right above it, not the row before', () => {
    const header: Row = [{ text: 'Description', x: X.description }, { text: 'Qty', x: X.quantity }, { text: 'Unit price', x: X.price }, { text: 'Amount', x: X.amount }];
    const numbers = (quantity: string, price: string, amount: string): Row => [{ text: quantity, x: X.quantity }, { text: price, x: X.price }, { text: amount, x: X.amount }];
    const table = tableOf([['Invoice 12', header, 'Site survey', numbers('1', '250.00', '250.00'), 'Cable tray', numbers('4', '12.50', '50.00'), [{ text: 'Total', x: X.description }, { text: '300.00', x: X.amount }]]]);
    expect(table?.rows.map((row) => row.values)).toEqual([
      { description: 'Site survey', quantity: 1, unit_price: 250, amount: 250 },
      { description: 'Cable tray', quantity: 4, unit_price: 12.5, amount: 50 },
    ]);
  });
});

describe('header words the camera misread', () => {
  it('recognises a header word misread by one letter on an OCR page ("Anount"), and reads the rows under it', () => {
    const ocr = (text: string, x: number): { text: string; x: number; confidence: number } => ({ text, x, confidence: 0.9 });
    const page: Row[] = [
      [ocr('Invoice 12', 0.08)],
      [ocr('Description', X.description), ocr('Qty', X.quantity), ocr('Price', X.price), ocr('Anount', X.amount)],
      [ocr('Site survey', X.description), ocr('1', X.quantity), ocr('250.00', X.price), ocr('250.00', X.amount)],
      [ocr('Cable tray', X.description), ocr('4', X.quantity), ocr('12.50', X.price), ocr('50.00', X.amount)],
    ];
    expect(tableOf([page])?.rows.map((row) => row.values)).toEqual([
      { description: 'Site survey', quantity: 1, unit_price: 250, amount: 250 },
      { description: 'Cable tray', quantity: 4, unit_price: 12.5, amount: 50 },
    ]);
  });
});

describe('a decimal mark read the other way round in one cell', () => {
  it('reads "4,55" among point amounts, and "3.90" among comma amounts, as two decimals, not as thousands', () => {
    const header: Row = [{ text: 'Description', x: X.description }, { text: 'Qty', x: X.quantity }, { text: 'Unit price', x: X.price }, { text: 'Amount', x: X.amount }];
    const points = tableOf([['Invoice 7', header, item('Seed bread', '1', '4,55', '4.55'), item('Rye rolls', '2', '3.90', '7.80'), item('Oat cookies', '1', '2.80', '2.80')]]);
    expect(points?.rows.map((row) => row.values.unit_price)).toEqual([4.55, 3.9, 2.8]);
    const germanHeader: Row = [{ text: 'Bezeichnung', x: X.description }, { text: 'Menge', x: X.quantity }, { text: 'Einzelpreis', x: X.price }, { text: 'Betrag', x: X.amount }];
    const commas = tableOf([['Rechnung 7', germanHeader, item('Schrauben', '1', '3.90', '3,90'), item('Dübel', '2', '1.250,00', '2.500,00')]], 'de');
    expect(commas?.rows.map((row) => row.values.unit_price)).toEqual([3.9, 1250]);
  });
});

describe('a scanned header and table as OCR boxes them', () => {
  it('takes a header word on its own line right of the header row as a column where the rows under it print amounts there', () => {
    const header: Row = [{ text: 'Pos', x: 0.09 }, { text: 'Description', x: 0.2 }, { text: 'Unit price', x: 0.41 }, { text: 'Qty', x: 0.6 }];
    const numbered = (position: string, description: string, price: string, quantity: string, amount: string): Row => [
      { text: position, x: 0.09 },
      { text: description, x: 0.2 },
      { text: price, x: 0.41 },
      { text: quantity, x: 0.6 },
      { text: amount, x: 0.85 },
    ];
    const table = tableOf([['Invoice 12', [{ text: 'Amount', x: 0.85 }], header, numbered('1', 'Hinge set', '2.50', '3', '7.50'), numbered('2', 'Door stop', '4.00', '1', '4.00'), [{ text: 'Subtotal', x: 0.5 }, { text: '11.50', x: 0.85 }]]]);
    expect(table?.rows.map((row) => [row.values.description, row.values.amount])).toEqual([
      ['Hinge set', 7.5],
      ['Door stop', 4],
    ]);
    // Text in the margin beside the header, with no amounts under it, still heads no column.
    const margin = tableOf([['Invoice 13', [{ text: 'Amount', x: 0.85 }], header, numbered('1', 'Hinge set', '2.50', '3', ''), [{ text: 'Subtotal', x: 0.5 }, { text: '7.50', x: 0.6 }]]]);
    expect(margin?.rows ?? []).toEqual([]);
  });

  it('measures the gap that ends a table in its rows’ height where OCR boxes make the page’s typical line lower', () => {
    const small = (text: string): Row => [{ text, x: 0.08, height: 0.006 }];
    const header: Row = [{ text: 'Description', x: X.description, height: 0.006 }, { text: 'Qty', x: X.quantity, height: 0.006 }, { text: 'Unit price', x: X.price, height: 0.006 }, { text: 'Amount', x: X.amount, height: 0.006 }];
    const tall = (description: string, quantity: string, price: string, amount: string): Row =>
      (item(description, quantity, price, amount) as PlacedText[]).map((cell) => ({ ...cell, height: 0.012 }));
    const page: Row[] = [
      ...['invoice from', 'a small shop', 'street one', 'town two', 'phone three', 'mail four', 'customer five', 'order six', 'terms seven', 'notes eight'].map(small),
      header,
      tall('Rental days', '2', '86.55', '173.10'),
      '',
      '',
      tall('Navigation', '2', '5.04', '10.08'),
      '',
      '',
      tall('Insurance', '2', '23.10', '46.20'),
    ];
    const document = placedDocument([page], { source: 'ocr' });
    const table = extractFields(document, invoiceSpecification).fields.find((result) => result.name === 'line_items')?.table;
    expect(table?.rows.map((row) => row.values.amount)).toEqual([173.1, 10.08, 46.2]);
  });
});

describe('a rate cell that prints its multipliers', () => {
  const header: Row = [{ text: 'Description', x: X.description }, { text: 'Rate', x: X.quantity }, { text: 'Amount', x: X.amount }];
  const stay = (description: string, rate: string, amount: string): Row => [{ text: description, x: X.description }, { text: rate, x: X.quantity }, { text: amount, x: X.amount }];

  it('takes the product of the counts after the rate as the quantity where it multiplies the rate to the amount', () => {
    const table = tableOf([['Harbour Lodge', 'Invoice no. 88', header, stay('Double room', 'EUR 120 x 3 Nights x 2 Rooms', 'EUR 720'), stay('Breakfast', 'EUR 15 x 4', 'EUR 60'), stay('Total', '', 'EUR 780')]]);
    expect(table?.rows.map((row) => [row.values.quantity, row.values.unit_price, row.values.amount])).toEqual([
      [6, 120, 720],
      [4, 15, 60],
    ]);
    const notMultiplied = tableOf([['Harbour Lodge', 'Invoice no. 89', header, stay('Double room', 'EUR 120 x 3 Nights', 'EUR 240'), stay('Total', '', 'EUR 240')]]);
    expect(notMultiplied?.rows[0]?.values.quantity).toBeUndefined();
  });
});

describe('a count the camera lost under a quantity header', () => {
  const read = (text: string, x: number): PlacedText => ({ text, x, confidence: 0.93 });
  const header: Row = [read('Item', X.description), read('Quantity', X.quantity), read('Rates', X.price), read('Amount', X.amount)];
  const rows = (quantity: string): Row[] => [
    read('Ridgeway Joinery', 0.08),
    read('Invoice no. 5521', 0.08),
    header,
    [read('Sanding', X.description), read('4', X.quantity), read('$12.00', X.price), read('$48.00', X.amount)],
    [read('Varnish', X.description), ...(quantity ? [read(quantity, X.quantity)] : []), read('$2.50', X.price), read('$7.50', X.amount)],
    [read('Total:', X.price), read('$55.50', X.amount)],
  ];
  const ocrTable = (pageRows: Row[]) =>
    extractFields(placedDocument([pageRows], { source: 'ocr', mediaType: 'image/png' }), invoiceSpecification).fields.find((result) => result.name === 'line_items')?.table;

  it('reads "Rates" as the unit price header, and gives an OCR row with an empty quantity cell the line total over the unit price', () => {
    const table = ocrTable(rows(''));
    expect(table?.rows.map((row) => [row.values.quantity, row.values.unit_price, row.values.amount])).toEqual([
      [4, 12, 48],
      [3, 2.5, 7.5],
    ]);
    expect(table?.rows[1]?.cells.quantity?.confidence).toBeLessThanOrEqual(0.75);
  });

  it('keeps a printed quantity, and derives none on a text page', () => {
    expect(ocrTable(rows('2'))?.rows[1]?.values.quantity).toBe(2);
    const printed = rows('').map((row) => (Array.isArray(row) ? row.map(({ text, x }) => ({ text, x })) : row));
    const textPage = extractFields(placedDocument([printed]), invoiceSpecification).fields.find((result) => result.name === 'line_items')?.table;
    expect(textPage?.rows[1]?.values.quantity).toBeUndefined();
  });
});

describe('two prices on a row', () => {
  it('takes as unit price the one that multiplies with the quantity to the line total, also where it stands left of the amount in its band', () => {
    const header: Row = [{ text: 'Item', x: X.description }, { text: 'Qty', x: X.quantity }, { text: 'Price', x: X.price }, { text: 'Amount', x: X.amount }];
    // Price before tax under the header word, price with tax printed between it and the amount (a
    // quantity of 2.5 m, which no till line reads as a count, so only the header's bands read the row).
    const table = tableOf([['Kestrel Tools', 'Invoice no. 310', header, [
      { text: 'Oak edging strip', x: X.description },
      { text: '2.5', x: X.quantity },
      { text: '40.00', x: X.price },
      { text: '43.20', x: 0.78 },
      { text: '108.00', x: X.amount },
    ], [{ text: 'Total', x: X.description }, { text: '108.00', x: X.amount }]]]);
    expect(table?.rows[0]?.values).toMatchObject({ quantity: 2.5, unit_price: 43.2, amount: 108 });
  });
});
