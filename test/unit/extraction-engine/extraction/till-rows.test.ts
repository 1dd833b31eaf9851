// Item lines printed without a header row, on synthetic till rolls (none of them in the corpus): each
// rule of the till reader fails here without it.

import { describe, expect, it } from 'vitest';
import { buildDocumentLayout } from '../../../../src/extraction-engine/fields/document-layout.ts';
import { extractFields } from '../../../../src/extraction-engine/fields/extract-fields.ts';
import { readsAsTableHeader } from '../../../../src/extraction-engine/fields/table-rows.ts';
import { ROW_AND_TABLE_ADD_UP, ROW_DOES_NOT_ADD_UP } from '../../../../src/extraction-engine/fields/table-arithmetic.ts';
import type { ExtractedTable } from '../../../../src/extraction-engine/fields/table-specification.ts';
import { invoiceSpecification, receiptSpecification } from '../../../../src/extraction-engine/prebuilt/prebuilt-document-types.ts';
import { placedDocument, type PlacedText, type Row } from './read-document-builder.ts';

// A till roll photographed whole: about 45 characters across.
const TILL = { characterWidth: 0.022, mediaType: 'image/jpeg', source: 'ocr' as const };
const LEFT = 0.05;
const RIGHT = 0.72;

function fieldsOf(rows: Row[], specification = receiptSpecification) {
  return extractFields(placedDocument([rows], TILL), specification).fields;
}

function tableOf(rows: Row[], specification = receiptSpecification): ExtractedTable | undefined {
  return fieldsOf(rows, specification).find((result) => result.name === 'line_items')?.table;
}

const head: Row[] = ['COOL BEANS CAFE', 'Jalan Ampang 12', 'Date: 02/03/2024 10:14', 'Cashier: 07'];
const line = (left: string, amount: string): Row => [{ text: left, x: LEFT }, { text: amount, x: RIGHT }];

describe('item lines without a header', () => {
  it('reads "count name  amount" lines above the totals, with the count as quantity', () => {
    const table = tableOf([...head, line('1 Flat white', '9.50 S'), line('2 Butter croissant', '13.00 S'), line('Subtotal', '22.50'), line('Total', '22.50'), line('Cash', '50.00'), line('Change', '27.50')]);
    expect(table?.rows.map((row) => row.values)).toEqual([
      { description: 'Flat white', quantity: 1, amount: 9.5 },
      { description: 'Butter croissant', quantity: 2, amount: 13 },
    ]);
  });

  it('reads a count printed in a column of its own between the name and the amount, and not a number that is part of the name', () => {
    const counted = (name: string, count: string, amount: string): Row => [{ text: name, x: LEFT }, { text: count, x: 0.5 }, { text: amount, x: RIGHT }];
    const table = tableOf([...head, counted('COCA COLA 600ML', '1', '18.50'), counted('PAN BIMBO', '2', '104.00'), line('TOTAL', '122.50')]);
    expect(table?.rows.map((row) => row.values)).toEqual([
      { description: 'COCA COLA 600ML', quantity: 1, amount: 18.5 },
      { description: 'PAN BIMBO', quantity: 2, amount: 104 },
    ]);
    // The size in the name, with no gap before it, stays in the name.
    expect(tableOf([...head, line('SHOE SIZE 10', '59.90'), line('TOTAL', '59.90')])?.rows[0]?.values).toEqual({ description: 'SHOE SIZE 10', amount: 59.9 });
  });

  it('takes the description from the line above a line of quantity × price, and leaves the code and pack lines out', () => {
    const table = tableOf([
      ...head,
      'GARDEN HOSE REEL 15M GREEN',
      'GH15 - 6/24',
      line('4006381333  2 X 12.40', '24.80'),
      'WATERING CAN 5L',
      line('4006381334  1 X 6.90', '6.90'),
      line('Item(s) : 2', ''),
      line('TOTAL', '31.70'),
    ]);
    expect(table?.rows.map((row) => row.values)).toEqual([
      { product_code: '4006381333', description: 'GARDEN HOSE REEL 15M GREEN', quantity: 2, unit_price: 12.4, amount: 24.8 },
      { product_code: '4006381334', description: 'WATERING CAN 5L', quantity: 1, unit_price: 6.9, amount: 6.9 },
    ]);
  });

  it('takes the name from above a line that opens with its count times its price, with the till\'s working after it ("1 * RM 2.83 UNT ( 0.17)=RM")', () => {
    const table = tableOf([
      ...head,
      [{ text: 'CH50514', x: LEFT }, { text: 'SR', x: 0.86 }],
      'T5 JOINT 2PIN 2PCS',
      line('1 * RM 2.83 UNT ( 0.17)=RM', '2.83'),
      [{ text: 'YT51874', x: LEFT }, { text: 'SR', x: 0.86 }],
      'YE30 BK 7W WW LED TRACK LIGHT',
      line('2 *RM 33.02 UNI ( 3.96)=RM', '66.04'),
      line('Sub Total', '68.87'),
      line('TOTAL', '68.87'),
    ]);
    expect(table?.rows.map((row) => row.values)).toEqual([
      { description: 'T5 JOINT 2PIN 2PCS', quantity: 1, unit_price: 2.83, amount: 2.83 },
      { description: 'YE30 BK 7W WW LED TRACK LIGHT', quantity: 2, unit_price: 33.02, amount: 66.04 },
    ]);
    // A count times a name ("2 x Brezel") is an item's count and name, not a price line.
    expect(tableOf([...head, line('2 x Brezel', '3.60'), line('TOTAL', '3.60')])?.rows[0]?.values).toEqual({ description: 'Brezel', quantity: 2, amount: 3.6 });
  });

  it('reads a department letter and a barcode before the amount as the code of an item named on the line below', () => {
    const table = tableOf([...head, line('LD 000008190801', '5.90SR'), '~~ STERILE FILTRAT', line('Sub-total', '5.90'), line('TOTAL', '5.90')]);
    expect(table?.rows.map((row) => row.values)).toEqual([{ product_code: '000008190801', description: 'STERILE FILTRAT', amount: 5.9 }]);
  });

  it('keeps a short last word of the name above a numbers line where the tax code is printed apart ("SHA BU   GR")', () => {
    const table = tableOf([
      ...head,
      [{ text: 'KAIN BEBOLA(S)SHA BU', x: LEFT }, { text: 'GR', x: 0.87 }],
      [{ text: '0412638', x: LEFT }, { text: '2 14.90 29.80', x: 0.51 }],
      line('TOTAL', '29.80'),
    ]);
    expect(table?.rows.map((row) => row.values)).toEqual([{ product_code: '0412638', description: 'KAIN BEBOLA(S)SHA BU', quantity: 2, unit_price: 14.9, amount: 29.8 }]);
  });

  it('knows a till header that names its columns "Item/Desc." and "Amt." for a header, so its words are no item\'s name', () => {
    const layout = buildDocumentLayout(placedDocument([[[{ text: 'Item/Desc.', x: LEFT }, { text: 'Price Amt.', x: 0.45 }]]], TILL));
    expect(readsAsTableHeader(layout.pages[0]!.rows[0]!, receiptSpecification.fields.find((field) => field.name === 'line_items')!.columns!)).toBe(true);
  });

  it('reads an amount with its currency written apart in the amount column ("HK$ 28.00")', () => {
    const table = tableOf([
      ...head,
      [{ text: 'Crispy Bun', x: LEFT }, { text: 'HK$ 28.00', x: 0.6 }],
      [{ text: 'Milk Tea', x: LEFT }, { text: 'HKD 22.00', x: 0.6 }],
      [{ text: 'TOTAL', x: LEFT }, { text: 'HK$ 50.00', x: 0.6 }],
    ]);
    expect(table?.rows.map((row) => row.values)).toEqual([
      { description: 'Crispy Bun', amount: 28 },
      { description: 'Milk Tea', amount: 22 },
    ]);
  });

  it('counts the rows as line_item_count and boxes each cell where it is printed', () => {
    const fields = fieldsOf([...head, { text: 'WATERING CAN 5L', x: LEFT }, line('1 X 6.90', '6.90'), line('TOTAL', '6.90')]);
    expect(fields.find((result) => result.name === 'line_item_count')?.value).toBe(1);
    const row = fields.find((result) => result.name === 'line_items')?.table?.rows[0];
    expect(row?.cells.amount?.placement?.x).toBeCloseTo(RIGHT, 3);
    expect(row?.cells.description?.placement?.x).toBeCloseTo(LEFT, 3);
    expect(row?.cells.description?.placement?.y).toBeLessThan(row!.cells.amount!.placement!.y);
  });

  it('gives high confidence only to rows whose quantity × price and sum add up, low to a row that does not', () => {
    const addsUp = tableOf([...head, 'TEA', line('2 x 3.00', '6.00'), 'CAKE', line('1 x 4.50', '4.50'), line('TOTAL', '10.50')]);
    expect(addsUp?.rows.map((row) => row.confidence)).toEqual([ROW_AND_TABLE_ADD_UP, ROW_AND_TABLE_ADD_UP]);
    const misread = tableOf([...head, 'TEA', line('2 x 3.00', '8.00'), 'CAKE', line('1 x 4.50', '4.50'), line('TOTAL', '12.50')]);
    expect(misread?.rows[0]?.confidence).toBe(ROW_DOES_NOT_ADD_UP);
    const unchecked = tableOf([...head, line('1 Flat white', '9.50'), line('TOTAL', '11.00')]);
    expect(unchecked?.rows[0]?.confidence).toBeLessThan(0.9);
  });

  it('reads a quantity and price without a sign between them only where they multiply to the amount', () => {
    const table = tableOf([...head, line('Tissue box 3 1.20', '3.60'), line('Batteries AA 4 7.90', '7.90'), line('TOTAL', '11.50')]);
    expect(table?.rows.map((row) => row.values)).toEqual([
      { description: 'Tissue box', quantity: 3, unit_price: 1.2, amount: 3.6 },
      { description: 'Batteries AA 4 7.90', amount: 7.9 },
    ]);
  });

  it('leaves out the head of the receipt, service charges, rounding and payment lines', () => {
    const table = tableOf([
      'COOL BEANS CAFE',
      line('Table: 12', '1.00'),
      line('1 Flat white', '9.50'),
      line('Service charge 10%', '0.95'),
      line('Subtotal', '10.45'),
      line('Rounding', '0.05'),
      line('Total', '10.50'),
    ]);
    expect(table?.rows.map((row) => row.values.amount)).toEqual([9.5]);
  });

  it('reads no rows where no totals line closes the item lines', () => {
    expect(tableOf([...head, line('1 Flat white', '9.50'), line('2 Butter croissant', '13.00'), 'Thank you'])).toBeUndefined();
  });

  it('prefers the rows under a header where the document prints one', () => {
    const header: Row = [{ text: 'Description', x: LEFT }, { text: 'Qty', x: 0.45 }, { text: 'Amount', x: RIGHT }];
    const table = tableOf(['Invoice 7', header, [{ text: 'Widget', x: LEFT }, { text: '2', x: 0.45 }, { text: '5.00', x: RIGHT }], line('Total', '5.00')], invoiceSpecification);
    expect(table?.rows.map((row) => row.values)).toEqual([{ description: 'Widget', quantity: 2, amount: 5 }]);
  });
});

describe('what a till camera reads', () => {
  it('takes "@2 X RM 2.20" under an item line as its quantity and unit price where they add up, the "@" read as a digit or not', () => {
    const table = tableOf([
      ...head,
      line('4410 ORANGE JUICE 1L', 'RM4.40 s'),
      { text: '@2 X RM 2.20', x: 0.1 },
      line('5102 RICE CAKE', 'RM9.00 s'),
      { text: '83 X RM 3.00', x: 0.1 },
      line('7001 BREAD LOAF', 'RM3.10 s'),
      { text: '@2 X RM 9.99', x: 0.1 },
      line('Total Sales RM', '16.50'),
    ]);
    expect(table?.rows.map((row) => [row.values.quantity, row.values.unit_price, row.values.amount])).toEqual([
      [2, 2.2, 4.4],
      [3, 3, 9],
      [undefined, undefined, 3.1],
    ]);
  });

  it('reads a line of only numbers as an item whose description is the wordiest line above it, the tax mark left out', () => {
    const table = tableOf([...head, { text: 'DOOR STOP RUBBER *5', x: LEFT }, { text: 'TD33 - 5/200', x: LEFT }, line('9002107 11% 7.50.', '7.50'), line('Item(s) : 1', ''), line('TOTAL', '7.50')]);
    // "11%" is the count and its "X" as the camera read them: the price equal to the amount says 1.
    expect(table?.rows.map((row) => row.values)).toEqual([{ product_code: '9002107', description: 'DOOR STOP RUBBER', quantity: 1, unit_price: 7.5, amount: 7.5 }]);
  });

  it('stops at a totals or payment word anywhere on the line, also where the totals label was misread', () => {
    const table = tableOf([...head, line('1 Flat white', '9.50'), line('(incl GST) Total', '9.50'), line('Tendered', '20.00'), line('Change due', '10.50')]);
    expect(table?.rows.map((row) => row.values.amount)).toEqual([9.5]);
  });
});

describe('lines with amounts that are not items', () => {
  it('reads no items from a summary of charges and credits, and takes no sum from a "Charges" line', () => {
    const page: Row[] = [
      'Cloud Hosting Ltd',
      line('Hosting Service Charges', '$9.20'),
      line('Charges', '$9.20'),
      line('Credits', '$0.00'),
      line('Total for this invoice', '$9.20'),
    ];
    expect(tableOf(page, invoiceSpecification)).toBeUndefined();
    const detail = tableOf(['Cloud Hosting Ltd', line('Object storage', '$0.01'), line('Charges', '$0.01'), line('Total for this invoice', '$3.00')], invoiceSpecification);
    expect(detail?.rows.map((row) => row.values)).toEqual([{ description: 'Object storage', amount: 0.01 }]);
    expect(detail?.confidence).toBeLessThan(0.9);
  });

  it('does not read a German sum line ("Positionssumme") as an item', () => {
    const table = tableOf(['Lieferant GmbH', line('Positionssumme', '198,00'), line('Bruttosumme', '235,62')], invoiceSpecification);
    expect(table).toBeUndefined();
  });
});

describe('item numbers and tax lines', () => {
  it('takes a short item number before the name as the product code, also after the count', () => {
    const table = tableOf([...head, line('2174 ORANGE SODA 1.5L', 'RM2.85 s'), line('1 D28 ICED MILO', '7.45 S'), line('TOTAL', '10.30')]);
    expect(table?.rows.map((row) => row.values)).toEqual([
      { product_code: '2174', description: 'ORANGE SODA 1.5L', amount: 2.85 },
      { product_code: 'D28', description: 'ICED MILO', quantity: 1, amount: 7.45 },
    ]);
  });

  it('reads no item from a tax summary line ("SR @ 6%  92.80  5.57")', () => {
    const table = tableOf([...head, line('1 Flat white', '9.50'), line('Item Count 1', ''), line('SR @ 6% 8.96', '0.54'), line('Rounding', '0.00')]);
    expect(table?.rows.map((row) => row.values.amount)).toEqual([9.5]);
    expect(tableOf([...head, line('SR @ 6% 92.80', '5.57'), line('Rounding', '0.00')])).toBeUndefined();
  });
});

describe('a list of items, each broken down on indented lines below it', () => {
  it('reads every item of the list, not only the one above the first breakdown', () => {
    const item = (name: string, amount: string): Row => [{ text: name, x: 0.1 }, { text: amount, x: 0.86 }];
    const breakdown = (name: string, amount: string): Row => [{ text: name, x: 0.14 }, { text: amount, x: 0.87 }];
    const page: Row[] = [
      'Hosting statement',
      'Invoice number: 88-1',
      [{ text: 'Total for this statement', x: 0.1 }, { text: '$23.75', x: 0.86 }],
      '',
      'Services',
      item('Web hosting', '$12.00'), breakdown('Charges', '$12.00'), breakdown('Tax', '$0.00'),
      item('Domain renewal', '$8.50'), breakdown('Charges', '$8.50'), breakdown('Tax', '$0.00'),
      item('Backup storage', '$3.25'), breakdown('Charges', '$3.25'), breakdown('Tax', '$0.00'),
    ];
    const table = extractFields(placedDocument([page], { language: 'en' }), invoiceSpecification).fields.find((result) => result.name === 'line_items')?.table;
    expect(table?.rows.map((row) => [row.values.description, row.values.amount])).toEqual([
      ['Web hosting', 12],
      ['Domain renewal', 8.5],
      ['Backup storage', 3.25],
    ]);
  });
});

describe('amounts as a till camera reads them', () => {
  it('reads an amount with its tax code glued on and the S read as 5, after a misread currency, or split at its point', () => {
    const table = tableOf([
      ...head,
      line('4410 PEANUT BUTTER JAR', '12,495R'),
      line('4411 OAT CRACKERS', 'RH3.20 s'),
      line('4412 PAPER TOWEL', 'EM5.10 s'),
      [{ text: '4413 DISH SOAP', x: LEFT }, { text: '7. 25', x: RIGHT }],
      line('Total', '28.04'),
    ]);
    expect(table?.rows.map((row) => [row.values.product_code, row.values.amount])).toEqual([
      ['4410', 12.49],
      ['4411', 3.2],
      ['4412', 5.1],
      ['4413', 7.25],
    ]);
  });

  it('leaves out a tax mark read as a digit ("Z" as 2), a stray currency sign or "=" after the amount', () => {
    const table = tableOf([...head, line('SOY SAUCE 500ML', '6.40 2'), line('RICE VINEGAR', '4.10 s €'), line('SESAME OIL', '9.90 ='), line('Total', '20.40')]);
    expect(table?.rows.map((row) => [row.values.description, row.values.amount])).toEqual([
      ['SOY SAUCE 500ML', 6.4],
      ['RICE VINEGAR', 4.1],
      ['SESAME OIL', 9.9],
    ]);
  });

  it('reads a unit price printed to four places ("3 X 2.9000")', () => {
    const table = tableOf([...head, 'NOTE PAD A6', [{ text: '3 X 2.9000', x: 0.1 }, { text: '-', x: 0.5 }, { text: '8.70', x: RIGHT }, { text: 'SR', x: 0.88 }], line('Total', '8.70')]);
    expect(table?.rows.map((row) => row.values)).toEqual([{ description: 'NOTE PAD A6', quantity: 3, unit_price: 2.9, amount: 8.7 }]);
  });
});

describe('item names printed under the item line', () => {
  it('names a line of count, barcode and amount from the line below it, where the last item has its name between it and the totals', () => {
    const table = tableOf([
      ...head,
      line('1x 000008204363', '14.99SR'),
      'CHOCO WAFER SHARE',
      line('Item promo 69.99', '-5.00'),
      line('2x 000001057437', '18.29SR'),
      'HERB BISCUIT BOX',
      line('Sub-total', '28.28'),
    ]);
    expect(table?.rows.map((row) => row.values)).toEqual([
      { product_code: '000008204363', description: 'CHOCO WAFER SHARE', quantity: 1, amount: 14.99 },
      { product_code: '000001057437', description: 'HERB BISCUIT BOX', quantity: 2, amount: 18.29 },
    ]);
  });
});

describe('what a till camera misreads around the items', () => {
  it('names an item from above a size line with a colon in it ("3.5:x6"), which is no label', () => {
    const table = tableOf([...head, 'MEMO PAD REFILL', '4.5:x7;', line('2 X 1.50', '3.00'), 'INDEX CARDS', line('1 X 2.20', '2.20'), line('Total', '5.20')]);
    expect(table?.rows.map((row) => [row.values.description, row.values.amount])).toEqual([
      ['MEMO PAD REFILL', 3],
      ['INDEX CARDS', 2.2],
    ]);
  });

  it('reads an amount whose point was lost or read as a colon only where quantity × price gives it', () => {
    const table = tableOf([...head, 'LABEL TAPE', line('3 X 2.12', '636 SR'), 'GLUE STICK', line('2 X 1.40', '2:80.'), 'STAPLES', line('1 X 4.00', '500'), line('Total', '9.16')]);
    expect(table?.rows.map((row) => [row.values.description, row.values.amount])).toEqual([
      ['LABEL TAPE', 6.36],
      ['GLUE STICK', 2.8],
    ]);
  });
});

describe('a till slip with a header over items of two lines', () => {
  it('reads the items line by line where the header bands misplace them and their arithmetic adds up', () => {
    const header: Row = [{ text: 'Description', x: LEFT }, { text: 'Qty', x: 0.36 }, { text: 'U.price', x: 0.5 }, { text: 'Total', x: 0.68 }, { text: 'TAX', x: 0.84 }];
    const numbers = (quantity: string, price: string, amount: string): Row => [{ text: quantity, x: 0.37 }, { text: price, x: 0.5 }, { text: amount, x: 0.68 }, { text: 'SR', x: 0.84 }];
    const table = tableOf([...head, header, 'Lamb shank stew', numbers('1 x', '22.50', '22.50'), 'Garden salad small', numbers('2x', '5.90', '11.80'), 'Tea pot big', numbers('1x', '12.90', '12.90'), line('Total (Excluding GST):', '47.20')]);
    expect(table?.rows.map((row) => row.values)).toEqual([
      { description: 'Lamb shank stew', quantity: 1, unit_price: 22.5, amount: 22.5 },
      { description: 'Garden salad small', quantity: 2, unit_price: 5.9, amount: 11.8 },
      { description: 'Tea pot big', quantity: 1, unit_price: 12.9, amount: 12.9 },
    ]);
  });
});

describe('till item lines read by their numbers', () => {
  it('finds the count and unit price anywhere among the line numbers where they multiply to the amount', () => {
    const table = tableOf([...head, line('RYE LOAF 2.40 16 8 3', '7.20'), line('BUNS 6PK 3.10 5 1 4', '12.40'), line('Total', '19.60')]);
    expect(table?.rows.map((row) => row.values)).toEqual([
      { description: 'RYE LOAF', quantity: 3, unit_price: 2.4, amount: 7.2 },
      { description: 'BUNS 6PK', quantity: 4, unit_price: 3.1, amount: 12.4 },
    ]);
  });

  it('takes a header misread by the camera as the top of the items, and names code-first lines from the line below', () => {
    const ocr = (text: string, x: number): PlacedText => ({ text, x, confidence: 0.9 });
    const numbers = (code: string, quantity: string, price: string, amount: string): Row => [ocr(code, 0.08), ocr(quantity, 0.38), ocr(price, 0.5), ocr(amount, 0.7), ocr('SR', 0.86)];
    const table = tableOf([
      ...head,
      [ocr('Mem', 0.08), ocr('Qty', 0.38), ocr('S/Price', 0.5), ocr('Awount', 0.7), ocr('Tax', 0.86)],
      numbers('1012', '4', '36.04', '144.16'),
      ocr('STATICE FULL', 0.08),
      numbers('1098', '3', '4.77', '14.31'),
      ocr('PALM LEAF 12S', 0.08),
      [ocr('Total Sales', 0.2), ocr('158.47', 0.7)],
    ]);
    expect(table?.rows.map((row) => [row.values.description, row.values.quantity, row.values.amount])).toEqual([
      ['STATICE FULL', 4, 144.16],
      ['PALM LEAF 12S', 3, 14.31],
    ]);
  });

  it('reads on past an item line whose amount the camera did not read, and names the items around it from their own lines', () => {
    const table = tableOf([
      ...head,
      'EPOXY PUTTY 50GM',
      'WA17 - 12/144',
      line('9555075106825 1 X 8.50', '8.50'),
      'FAN BLADE 16IN',
      'WA50 - 30',
      line('9750009 V X 630%', '6:3O'),
      'KEY HOLDER GRID',
      '0100 - 12/480',
      line('9045734 1 X 7.50', '7.50'),
      line('Item(s) : 3', ''),
      line('TOTAL', '22.30'),
    ]);
    expect(table?.rows.map((row) => [row.values.description, row.values.amount])).toEqual([
      ['EPOXY PUTTY 50GM', 8.5],
      ['KEY HOLDER GRID', 7.5],
    ]);
  });
});

describe('a subtotal label the camera cut short', () => {
  it('closes the items at "SUB TO)" as at "SUB TOTAL"', () => {
    const table = tableOf([...head, line('1 FISHBALL NOODLE', '7.00'), line('1 SUB TO). Ns', '7.00'), 'GST 6%', line('NET TOTAL', '7.00')]);
    expect(table?.rows.map((row) => row.values)).toEqual([{ description: 'FISHBALL NOODLE', quantity: 1, amount: 7 }]);
  });
});

describe('items in sections, each with its own subtotal', () => {
  it('reads the items after a section subtotal up to the next one where they add up to it, and no payment lines', () => {
    const table = tableOf([
      ...head,
      line('WHITE LOAF 2.10 5 0 2', '4.20'),
      line('Total 0% supplies:', '4.20'),
      line('CHOC ROLL 0.80 10 0 10', '8.00'),
      line('JAM TART 2.50 2 0 2', '5.00'),
      line('Total 6% supplies (excl. GST):', '13.00'),
      line('Total Payable:', '17.98'),
      line('Cash', '20.00'),
    ]);
    expect(table?.rows.map((row) => [row.values.description, row.values.amount])).toEqual([
      ['WHITE LOAF', 4.2],
      ['CHOC ROLL', 8],
      ['JAM TART', 5],
    ]);
    const notASum = tableOf([...head, line('WHITE LOAF', '4.20'), line('Subtotal', '4.20'), line('Points earned', '12.00'), line('Total', '4.20')]);
    expect(notASum?.rows.map((row) => row.values.amount)).toEqual([4.2]);
  });

  it('counts negative the one returned item whose lost minus makes the items add up to their subtotal, and no item where two could', () => {
    const slip = (middle: string, subtotal: string) =>
      tableOf([...head, line('2 WHITE LOAF', '4.20'), line(`3 ${middle}`, '7.50'), line('4 CHOC ROLL', '3.20'), line('Subtotal', subtotal), line('Total', subtotal), line('Cash', '20.00')]);
    const returned = slip('RYE LOAF', '-0.10');
    expect(returned?.rows.map((row) => [row.values.quantity, row.values.amount])).toEqual([[2, 4.2], [-3, -7.5], [4, 3.2]]);
    // Chosen by the arithmetic, never certain.
    expect(returned?.rows[1]?.cells.amount?.confidence).toBeLessThanOrEqual(0.75);
    // 4.20 + 7.50 + 3.20 = 14.90 is the subtotal: nothing was returned.
    expect(slip('RYE LOAF', '14.90')?.rows.map((row) => row.values.amount)).toEqual([4.2, 7.5, 3.2]);
    // Either of two equal amounts could be the return: nothing says which, so both stay as read.
    const ambiguous = tableOf([...head, line('1 RYE LOAF', '4.20'), line('1 WHITE LOAF', '4.20'), line('Subtotal', '0.00'), line('Total', '0.00')]);
    expect(ambiguous?.rows.map((row) => row.values.amount)).toEqual([4.2, 4.2]);
  });

  it('reads a ringgit amount whose leading 1 the camera read as a letter ("RMi1.90")', () => {
    const table = tableOf([...head, line('371 RICE CRACKER 15', 'RMi1.90 s'), line('Total', '11.90')]);
    expect(table?.rows.map((row) => row.values.amount)).toEqual([11.9]);
  });
});

describe('counts and prices a camera misread, taken where they multiply to the amount', () => {
  it('gives "@2 X RM 1.75" under an item to that item also where the line under it is an item with no amount read', () => {
    const table = tableOf([
      ...head,
      line('4410 GINGER BISCUITS', 'RM3.50 s'),
      '82 X RM 1.75',
      line('0712 OAT DRINK SACHET', 's'),
      line('0920 SODA CRACKERS', 'RM4.20 s'),
      line('Total Sales (Inclusive GST) RM', '7.70'),
    ]);
    expect(table?.rows.map((row) => [row.values.description, row.values.quantity, row.values.unit_price, row.values.amount])).toEqual([
      ['GINGER BISCUITS', 2, 1.75, 3.5],
      ['SODA CRACKERS', undefined, undefined, 4.2],
    ]);
  });

  it('reads "1 X.12.50", a count beside its price as "1.00", "l x" or "2X", a price after "@" or "$" and a price with a colon for its point', () => {
    const table = tableOf([
      ...head,
      'CANDLE HOLDER SET',
      line('6900011122233 1 X.12.50', '12.50'),
      line('2 MANGO LASSI @4.60', '9.20 S'),
      'HONEY JAR 250G',
      line('6900011122240 1 X 3:40.', '3.40'),
      'SESAME BAR',
      line('l x 1.20', '1.20 ZR'),
      'PLAIN NAAN',
      line('1.00 2,10', '2.10'),
      'FRIED RICE',
      line('$6.30 1', '$6.30'),
      line('Total', '34.70'),
    ]);
    expect(table?.rows.map((row) => [row.values.quantity, row.values.unit_price, row.values.amount])).toEqual([
      [1, 12.5, 12.5],
      [2, 4.6, 9.2],
      [1, 3.4, 3.4],
      [1, 1.2, 1.2],
      [1, 2.1, 2.1],
      [1, 6.3, 6.3],
    ]);
    const noProduct = tableOf([...head, line('SNACK BOX 3:15', '4.00'), line('Total', '4.00')]);
    expect(noProduct?.rows[0]?.values.unit_price).toBeUndefined();
  });

  it('takes a code opening the name above a numbers-only line, after its tax code if any, as the product code', () => {
    const table = tableOf([...head, '00031207 WALNUT LOAF', line('1 X 4.80', '4.80'), 'SR 200300000012- Steamed Greens', line('1 X 3.10', '3.10'), line('Total', '7.90')]);
    expect(table?.rows.map((row) => [row.values.product_code, row.values.description])).toEqual([
      ['00031207', 'WALNUT LOAF'],
      ['200300000012', 'Steamed Greens'],
    ]);
  });

  it('takes a code glued to the name by its hyphen, and a menu\'s dish number before the name, as the product code', () => {
    const table = tableOf([
      ...head,
      'SR 200300000013-Braised Tofu',
      line('1 X 4.20', '4.20'),
      line('B02 HALF BOILED EGG', '2.40'),
      'P02 Spaghetti Aglio Olio',
      line('1 X 15.00', '15.00'),
      line('Total', '21.60'),
    ]);
    expect(table?.rows.map((row) => [row.values.product_code, row.values.description])).toEqual([
      ['200300000013', 'Braised Tofu'],
      ['B02', 'HALF BOILED EGG'],
      ['P02', 'Spaghetti Aglio Olio'],
    ]);
  });
});

describe('counts and prices as OCR garbled them, settled by the line\'s own amount', () => {
  const cellsOf = (table: ExtractedTable | undefined) => table?.rows.map((row) => [row.values.quantity, row.values.unit_price, row.values.amount]);

  it('reads a price without its point, or split at it, where the count printed beside it multiplies it to the amount', () => {
    // Item code, count, price before tax, price with tax, amount: the price with tax lost its point or was split at it.
    const table = tableOf([...head, line('2210 3 11.00 1166', '34.98 SR'), line('2211 2 5.00 5 30', '10.60 SR'), line('Total', '45.58')]);
    expect(cellsOf(table)).toEqual([
      [3, 11.66, 34.98],
      [2, 5.3, 10.6],
    ]);
  });

  it('undoes one digit OCR confuses (8 for 9, 5 for 6) only where that reading alone multiplies to the amount', () => {
    // 3 × 8.42 is 25.26, 3 × 9.42 the amount; "13 57" split at its point, and its 6 read as 5.
    const table = tableOf([...head, line('4410 3 8.90 8.42', '28.26'), line('4411 2 12.80 13 57', '27.34'), line('Total', '55.60')]);
    expect(cellsOf(table)).toEqual([
      [3, 9.42, 28.26],
      [2, 13.67, 27.34],
    ]);
  });

  it('reads a price printed before its count ("4.20*2") with the sign read as a mark or lost', () => {
    const table = tableOf([...head, 'OAT MILK 1L', line("4.20'2", '8.40'), 'RYE CRACKERS', line('9312345000017 3 003', '9.00'), line('Total', '17.40')]);
    expect(cellsOf(table)).toEqual([
      [2, 4.2, 8.4],
      [3, 3, 9],
    ]);
  });

  it('takes a count the camera lost as the amount over the price right before it, and no count where another word reads as one', () => {
    const table = tableOf([...head, 'GREEN APPLES (PKT)', line('7712 6 45°.', '19.35'), 'PEARS', line('7713 5 2.10', '4.20'), line('Total', '23.55')]);
    expect(cellsOf(table)).toEqual([
      [3, 6.45, 19.35],
      [undefined, undefined, 4.2],
    ]);
  });

  it('leaves count and price out where two readings multiply to the amount, and never vouches for a row with a repaired cell', () => {
    // "2 1200" as 12.00 and "2 12 00" (split) are the same reading; "1200 600": 12.00 × 2 and 6.00 × 4 both give 24.00.
    const ambiguous = tableOf([...head, line('SOAP 2 4 1200 600', '24.00'), line('Total', '24.00')]);
    expect(ambiguous?.rows[0]?.values.quantity).toBeUndefined();
    const repaired = tableOf([...head, line('5510 4 9.00 8.54', '38.16'), line('Total', '38.16')]);
    expect(repaired?.rows[0]?.values).toMatchObject({ quantity: 4, unit_price: 9.54 });
    expect(repaired?.rows[0]?.cells.unit_price?.confidence).toBeLessThanOrEqual(0.75);
    expect(repaired?.rows[0]?.confidence).toBeLessThan(ROW_AND_TABLE_ADD_UP);
  });

  it('reads "1%" before a barcode as the count "1x" the camera misread', () => {
    const table = tableOf([...head, line('1% 000004400123', '6.50SR'), 'RICE CRACKERS', line('Sub-total', '6.50')]);
    expect(table?.rows[0]?.values).toMatchObject({ quantity: 1, product_code: '000004400123', amount: 6.5 });
  });
});

describe('counts checked against the till\'s quantity total', () => {
  const items = (count: string): Row[] => [...head, 'DESK LAMP', line('1 * RM 12.50 UNI', '12.50'), 'LED BULB 9W', line(`${count} * RM 4.20 UNI`, '8.40'), line('Sub Total', '20.90')];

  it('gives a line whose printed count does not multiply its price the count its amount over its price gives, where that makes the counts add up to the total', () => {
    const table = tableOf([...items('3'), line('Qty Count : 3.0', '')]);
    expect(table?.rows.map((row) => [row.values.quantity, row.values.unit_price, row.values.amount])).toEqual([
      [1, 12.5, 12.5],
      [2, 4.2, 8.4],
    ]);
    expect(table?.rows[1]?.cells.quantity?.confidence).toBeLessThanOrEqual(0.75);
  });

  it('does not take the count from amount over price where no quantity total says the printed one is wrong', () => {
    for (const rows of [items('3'), [...items('3'), line('Qty Count : 4.0', '')]]) {
      expect(tableOf(rows)?.rows[1]?.values).not.toMatchObject({ quantity: 2 });
      expect(tableOf(rows)?.rows[1]?.values.unit_price).toBeUndefined();
    }
  });
});

describe('item lines in a currency without cents', () => {
  const rupiah: Row[] = ['WARUNG SEDERHANA', 'Jl. Merdeka 45, Jakarta', 'Date: 27/11/2026 13:05', 'Kasir: 03'];

  it('reads money printed in whole units with grouped thousands ("22.000", "Rp125.000") where the currency has no cents in use', () => {
    const table = tableOf([
      ...rupiah,
      line('2 x 25.000 Nasi Rendang', '50.000'),
      line('Es Teh Manis', '10,000'),
      line('Kambing Guling', 'Rp125.000'),
      line('TOTAL', 'Rp 185.000'),
      line('TUNAI', 'Rp 200.000'),
      line('KEMBALI', 'Rp 15.000'),
    ]);
    expect(table?.rows.map((row) => row.values.amount)).toEqual([50000, 10000, 125000]);
    expect(table?.rows[0]?.values).toMatchObject({ quantity: 2, unit_price: 25000 });
    expect(table?.arithmetic?.addsUpToSum).toBe(true);
  });

  it('reads yen under a thousand by their sign ("¥180"), which has no group of thousands to tell it by', () => {
    const table = tableOf([
      'FamilyMart',
      'Shibuya, Tokyo',
      'Date: 2026-11-27 08:14',
      line('Onigiri Salmon', '¥180'),
      line('Green Tea 500ml', '¥150'),
      line('Total', '¥330'),
      line('Cash', '¥1,000'),
      line('Change', '¥670'),
    ]);
    expect(table?.rows.map((row) => row.values)).toEqual([
      { description: 'Onigiri Salmon', amount: 180 },
      { description: 'Green Tea 500ml', amount: 150 },
    ]);
  });

  it('leaves three decimals alone where the currency has cents: "12.402" litres is no money', () => {
    const fuel = tableOf([
      'SHELL STATION',
      'Jalan Ampang 12, 50450 Kuala Lumpur',
      'Date: 02/03/2024 10:14',
      line('PETROL 12.402 L @ RM2.05', '25.42'),
      line('Total RM', '25.42'),
      line('Cash', '30.00'),
      line('Change', '4.58'),
    ]);
    expect(fuel?.rows.map((row) => row.values.amount)).toEqual([25.42]);
    // The same rupiah lines read as a ringgit slip give no items: their money has no cents.
    const ringgit = tableOf(['KEDAI MAJU', 'Jalan Ampang 12, 50450 Kuala Lumpur SDN BHD', 'Date: 02/03/2024 10:14', line('Es Teh Manis', '10.000'), line('Teh Tarik', '5.000'), line('TOTAL RM', '15.00')]);
    expect(ringgit?.rows.map((row) => row.values.amount) ?? []).not.toContain(10000);
  });
});
