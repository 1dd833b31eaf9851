import { describe, expect, it } from 'vitest';
import { defaultExtractionConfiguration } from '../../../../src/extraction-engine/configuration/parse-extraction-configuration.ts';
import { placementOnPageAsGiven, type QuarterTurn } from '../../../../src/extraction-engine/document.ts';
import { extractDocument, type ExtractedField } from '../../../../src/extraction-engine/extract-document.ts';
import { buildDocumentLayout } from '../../../../src/extraction-engine/fields/document-layout.ts';
import { receiptHeadCandidates } from '../../../../src/extraction-engine/fields/document-evidence.ts';
import { placedDocument, type PlacedText, type Row } from './read-document-builder.ts';

// Till receipts laid out the way thermal printers print them (and OCR reads them): the business name
// first, then address, registration and tax numbers, a "TAX INVOICE" title where GST/VAT law asks
// for one, items, a totals block with tax, rounding, cash and change, and a farewell.

const item = (name: string, amount: string): Row => [{ text: name, x: 0.06 }, { text: amount, x: 0.78 }];

function till(options: { head?: Row[]; totals?: Row[] } = {}): Row[] {
  return [
    ...(options.head ?? [
      { text: 'KEDAI MAJU JAYA', x: 0.3, confidence: 0.9 },
      { text: 'Kedai Maju Trading Sdn Bhd (654321-A)', x: 0.18, confidence: 0.9 },
      { text: 'NO. 12, JALAN MERANTI 3, 47100 PUCHONG', x: 0.1, confidence: 0.9 },
      { text: 'TEL: 03-8075 1234', x: 0.3, confidence: 0.9 },
      { text: 'GST ID: 000123456789', x: 0.28, confidence: 0.9 },
    ]),
    { text: 'TAX INVOICE', x: 0.35, confidence: 0.9 },
    [{ text: 'Cashier: AMIRA', x: 0.06 }, { text: '17/03/2018 14:22', x: 0.6 }],
    item('MILO 1KG', '24.90'),
    item('GARDENIA BREAD', '3.85'),
    ...(options.totals ?? [
      item('Total Excl. GST', '27.12'),
      item('GST @6%', '1.63'),
      item('Total Incl. GST', '28.75'),
      item('Rounding Adj', '0.00'),
      item('CASH', '50.00'),
      item('CHANGE', '21.25'),
    ]),
    { text: 'THANK YOU, PLEASE COME AGAIN', x: 0.2 },
  ];
}

function extract(rows: Row[]) {
  const outcome = extractDocument(placedDocument([rows], { language: 'en', source: 'ocr' }), { configuration: defaultExtractionConfiguration });
  if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
  return { docType: outcome.docType, values: Object.fromEntries(outcome.fields.map((field) => [field.name, field.value])) };
}

/** The seller of a till whose head is one name line (OCR doubted a word of it) over its address. */
function sellerUnderHeadLine(name: string) {
  return extract(till({ head: [{ text: name, x: 0.2, confidence: 0.85 }, { text: 'LOT 5, JALAN BUNGA RAYA, 75100 MELAKA', x: 0.1, confidence: 0.9 }] })).values.seller_name;
}

describe('a till receipt OCR read turned upright', () => {
  /** The fields of the receipt read upright, and of the same reading of a page that had to be turned by `turn`. */
  function extractedAsGivenAndUpright(turn: QuarterTurn) {
    const fields = (document: ReturnType<typeof placedDocument>): Record<string, ExtractedField> => {
      const outcome = extractDocument(document, { configuration: defaultExtractionConfiguration, createFieldId: () => 'fld_test' });
      if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
      return Object.fromEntries(outcome.fields.map((field) => [field.name, field]));
    };
    const upright = placedDocument([till()], { language: 'en', source: 'ocr', mediaType: 'image/jpeg' });
    const turned = { ...upright, pages: upright.pages.map((page) => ({ ...page, turn })) };
    return { upright: fields(upright), turned: fields(turned) };
  }
  const close = (actual: object | undefined, expected: object | undefined) => {
    for (const [key, value] of Object.entries(expected ?? {})) expect((actual as Record<string, number>)[key]).toBeCloseTo(value as number, 3);
  };

  it.each([90, 180, 270] as const)('finds the same values, their boxes put back on the page as given (turned %i)', (turn) => {
    const { upright, turned } = extractedAsGivenAndUpright(turn);

    expect(Object.fromEntries(Object.entries(turned).map(([name, field]) => [name, field.value]))).toEqual(Object.fromEntries(Object.entries(upright).map(([name, field]) => [name, field.value])));
    for (const name of ['seller_name', 'total_amount', 'issue_date']) {
      const box = upright[name]!.metadata.placement!;
      close(turned[name]!.metadata.placement, placementOnPageAsGiven(box, turn));
    }
    const items = upright.line_items!;
    expect(items.metadata.rows?.length).toBeGreaterThan(0);
    items.metadata.rows!.forEach((row, index) => {
      const turnedRow = turned.line_items!.metadata.rows![index]!;
      close(turnedRow.placement, placementOnPageAsGiven(row.placement!, turn));
      for (const [column, cell] of Object.entries(row.cells)) if (cell.placement) close(turnedRow.cells[column]!.placement, placementOnPageAsGiven(cell.placement, turn));
    });
  });

  it('reports a quarter-turned line taller than wide, where the client sees it', () => {
    const { turned } = extractedAsGivenAndUpright(90);
    const seller = turned.seller_name!.metadata.placement!;

    expect(seller.height).toBeGreaterThan(seller.width);
  });
});

describe('till receipts', () => {
  it('take an unlabelled address block for the buyer only when it names a business, its legal form as OCR misread it restored', () => {
    const withBlockAfterTitle = (block: Row[]): Row[] => {
      const rows = till();
      rows.splice(rows.findIndex((row) => typeof row === 'object' && 'text' in row && row.text === 'TAX INVOICE') + 1, 0, ...block);
      return rows;
    };
    const street: Row[] = [
      { text: 'JLN KENANGA 5', x: 0.06 },
      { text: 'TAMAN BUKIT INDAH', x: 0.06 },
      { text: '81200 JOHOR BAHRU', x: 0.06 },
    ];
    const business: Row[] = [
      { text: 'KEDAI RUNCIT AMAN SON BHD', x: 0.06 },
      { text: 'NO 4 JALAN SS 2/24', x: 0.06 },
      { text: '47300 PETALING JAYA', x: 0.06 },
    ];

    expect(extract(withBlockAfterTitle(street)).values.buyer_name ?? null).toBeNull();
    expect(extract(withBlockAfterTitle(business)).values.buyer_name).toBe('KEDAI RUNCIT AMAN SDN BHD');
  });

  it('routes a till receipt titled "TAX INVOICE" as a receipt, by its cashier, cash, change and farewell', () => {
    expect(extract(till()).docType).toBe('receipt');
  });

  it('routes a slip on narrow till paper as a receipt although it is titled "TAX INVOICE" and names no till words; the same rows on a page stay an invoice', () => {
    const slip: Row[] = [
      { text: 'SINAR PAGI BREAD SDN BHD', x: 0.1, confidence: 0.9 },
      { text: 'Lot 7, Jalan Industri 2, 43650 Bangi', x: 0.05, confidence: 0.9 },
      { text: 'GST ID: 000123456789', x: 0.2, confidence: 0.9 },
      { text: 'TAX INVOICE / DELIVERY ORDER', x: 0.15, confidence: 0.9 },
      [{ text: 'Inv No: 5521A', x: 0.5 }],
      [{ text: 'Date: 03/05/2018', x: 0.5 }],
      { text: 'KEDAI RUNCIT AMAN', x: 0.02 },
      { text: 'NO 4 JALAN SS 2/24 PETALING JAYA', x: 0.02 },
      ...['WHITE LOAF', 'WHOLEMEAL', 'RAISIN BUN', 'BUTTER ROLL', 'KAYA BUN', 'CORN BREAD', 'CREAM ROLL', 'MILK LOAF'].map((name): Row => [{ text: `${name} 2.20 1`, x: 0.02 }, { text: '2.20', x: 0.8 }]),
      [{ text: 'Total Payable:', x: 0.4 }, { text: '17.60', x: 0.8 }],
      { text: 'Goods received in good order and condition.', x: 0.02 },
      { text: 'This tax invoice is computer generated.', x: 0.02 },
    ];
    const routed = (characterWidth?: number, rows: Row[] = slip) => {
      const outcome = extractDocument(placedDocument([rows], { language: 'en', source: 'ocr', ...(characterWidth ? { characterWidth } : {}) }), { configuration: defaultExtractionConfiguration });
      return outcome.status === 'COMPLETED' ? outcome.docType : outcome.status;
    };
    expect(routed(0.021)).toBe('receipt');
    expect(routed()).toBe('invoice');
    // A narrow slip that asks to be paid later (a due date) is an invoice, whatever its paper.
    expect(routed(0.021, [...slip.slice(0, 6), { text: 'Due Date: 30/05/2018', x: 0.5 }, ...slip.slice(6)])).toBe('invoice');
  });

  it('routes a short slip on narrow till paper as a receipt: a fuel sale of nine lines names no till word', () => {
    const fuel: Row[] = [
      { text: 'SHELL', x: 0.4 },
      { text: '3400 W Sunset Blvd', x: 0.25 },
      { text: 'Los Angeles, CA 90026', x: 0.22 },
      { text: 'PUMP# 04', x: 0.02 },
      { text: 'UNLEADED 12.402 G @ $4.599/G', x: 0.02 },
      [{ text: 'FUEL SALE', x: 0.02 }, { text: '$57.04', x: 0.7 }],
      [{ text: 'TOTAL SALE', x: 0.02 }, { text: '$57.04', x: 0.7 }],
      [{ text: 'CREDIT', x: 0.02 }, { text: '$57.04', x: 0.7 }],
      { text: '11/27/26 06:41', x: 0.02 },
    ];
    const outcome = extractDocument(placedDocument([fuel], { language: 'en', source: 'ocr', characterWidth: 0.021 }), { configuration: defaultExtractionConfiguration });
    expect(outcome.status === 'COMPLETED' ? outcome.docType : outcome.status).toBe('receipt');
    // "AMOUNT DUE" above the card payment asks nothing to be paid later ("Due:" keys a due date, "due" alone does not).
    const amountDue = fuel.map((row) => (Array.isArray(row) && row[0]!.text === 'TOTAL SALE' ? [{ ...row[0]!, text: 'AMOUNT DUE' }, row[1]!] : row));
    const dueOutcome = extractDocument(placedDocument([amountDue], { language: 'en', source: 'ocr', characterWidth: 0.021 }), { configuration: defaultExtractionConfiguration });
    expect(dueOutcome.status === 'COMPLETED' ? dueOutcome.docType : dueOutcome.status).toBe('receipt');
  });

  it('still routes a letter that only says thank you nowhere', () => {
    const letter: Row[] = ['Dear Sir or Madam,', 'thank you for your letter of last week.', 'Kind regards'];
    expect(extractDocument(placedDocument([letter], { language: 'en' }), { configuration: defaultExtractionConfiguration })).toMatchObject({ status: 'FAILED', code: 'DOCUMENT_NOT_ROUTED' });
  });

  it('takes the legal name under a brand line printed as a run of its own at the head, not the brand, the address or the tax line', () => {
    expect(extract(till()).values.seller_name).toBe('Kedai Maju Trading Sdn Bhd');
    // Whether the brand goes with the legal name is a bookkeeping convention: never certain.
    const outcome = extractDocument(placedDocument([till()], { language: 'en', source: 'ocr' }), { configuration: defaultExtractionConfiguration });
    expect(outcome.status === 'COMPLETED' && outcome.fields.find((field) => field.name === 'seller_name')?.metadata.confidence).toBeLessThan(0.9);
  });

  it('joins a head line wrapped for want of room with the legal name it runs into, but not a short outlet line over it', () => {
    const head = (first: string): Row[] => [
      { text: first, x: 0.1, confidence: 0.9 },
      { text: 'PUTRA JAYA FOOD SDN BHD', x: 0.1, confidence: 0.9 },
      { text: '(1168272-U)', x: 0.3, confidence: 0.9 },
      { text: 'NO. 12, JALAN MERANTI 3, 47100 PUCHONG', x: 0.1, confidence: 0.9 },
    ];
    // The outlet's name ends well short of the legal name's width: it had room for more on its line.
    expect(extract(till({ head: head('AL BAIK-THE MALL') })).values.seller_name).toBe('PUTRA JAYA FOOD SDN BHD');
    // The outlet's name as a run of its own on the legal name's line, a column gap between them.
    const sameLine: Row[] = [[{ text: 'AL BAIK', x: 0.05, confidence: 0.9 }, { text: 'PUTRA JAYA FOOD SDN BHD', x: 0.3, confidence: 0.9 }], ...head('').slice(2)];
    expect(extract(till({ head: sameLine })).values.seller_name).toBe('PUTRA JAYA FOOD SDN BHD');
    // As wide as the paper: the name went on on the next line.
    expect(extract(till({ head: head('RESTORAN SERI MELAKA DAN') })).values.seller_name).toBe('RESTORAN SERI MELAKA DAN PUTRA JAYA FOOD SDN BHD');
  });

  it('skips OCR noise and handwriting above the name', () => {
    const head: Row[] = [
      { text: 'tan woon yann', x: 0.2, confidence: 0.9 },
      { text: '= < ’', x: 0.3, confidence: 0.8 },
      { text: 'B & BEST RESTAURANT', x: 0.2, confidence: 0.92 },
      { text: '(001610235-P)', x: 0.36, confidence: 0.9 },
      { text: '5540/5, PETALING JAYA', x: 0.3, confidence: 0.9 },
    ];
    expect(extract(till({ head })).values.seller_name).toBe('B & BEST RESTAURANT');
  });

  it('skips the OCR of a logo above the name (a digit inside a word), and joins the legal form printed alone on the next line', () => {
    const head = (legalForm: string): Row[] => [
      { text: 'S1gnaty', x: 0.3, confidence: 0.8 },
      { text: '| SINAR BAKERIES (PG)', x: 0.12, confidence: 0.85 },
      { text: `${legalForm} (123456 X)`, x: 0.3, confidence: 0.85 },
      { text: 'Lot 3, Jalan Pelabur 23/1,', x: 0.12, confidence: 0.9 },
      { text: '40300 Shah Alam, Selangor.', x: 0.12, confidence: 0.9 },
    ];
    expect(extract(till({ head: head('SDN BHD') })).values.seller_name).toBe('SINAR BAKERIES (PG) SDN BHD');
    expect(extract(till({ head: head('BHD') })).values.seller_name).toBe('SINAR BAKERIES (PG) BHD');
    // A short name over a wider legal-form line had room for it, yet the form alone names nobody.
    const shortName: Row[] = [{ text: 'MAJU', x: 0.4, confidence: 0.9 }, { text: 'SDN BHD (1234567-X)', x: 0.28, confidence: 0.9 }, ...head('').slice(3)];
    expect(extract(till({ head: shortName })).values.seller_name).toBe('MAJU SDN BHD');
    // Digits in a name are words of their own, lead it or stand for a word: "99 SPEED MART", "Car2go".
    for (const name of ['99 SPEED MART', 'Fit4less Cafe']) {
      const digits: Row[] = [{ text: name, x: 0.3, confidence: 0.9 }, { text: 'LOT 5, JALAN BUNGA RAYA, 75100 MELAKA', x: 0.1, confidence: 0.9 }];
      expect(extract(till({ head: digits })).values.seller_name).toBe(name);
    }
  });

  it('takes no town inside the address block for the seller when the name at the head was a logo OCR did not read', () => {
    const head: Row[] = [
      { text: 'NO.19 & 21', x: 0.1, confidence: 0.9 },
      { text: 'JALAN TEMENGGUNG 23/9', x: 0.1, confidence: 0.9 },
      { text: 'BANDAR MAHKOTA CHERAS', x: 0.1, confidence: 0.9 },
      { text: '43200 SELANGOR DARUL EHSAN, MALAYSIA', x: 0.1, confidence: 0.9 },
    ];
    expect(extract(till({ head })).values.seller_name ?? null).toBeNull();
    // The same town line heading the block is a name, as before: only a street line above it makes it part of an address.
    expect(extract(till({ head: head.slice(2) })).values.seller_name).toBe('BANDAR MAHKOTA CHERAS');
  });

  it('takes no section heading for the seller once key-value lines have begun', () => {
    const booking: Row[] = [
      { text: 'PAYMENT RECEIPT', x: 0.08, height: 0.02 },
      'Guest Name: Sanjay',
      'Date: 31/12/2017',
      'Hotel Details',
      [{ text: 'Room charges', x: 0.08 }, { text: '1,939.00', x: 0.8 }],
      [{ text: 'Total', x: 0.08 }, { text: '1,939.00', x: 0.8 }],
      'Oravel Stays Private Limited, 3rd Floor, Chennai',
    ];
    expect(extract(booking).values.seller_name).not.toBe('Hotel Details');
  });

  it('restores a legal form OCR misread at the end of the name and drops a registration number without parentheses', () => {
    const head = (name: string): Row[] => [{ text: name, x: 0.2, confidence: 0.85 }, { text: 'LOT 5, JALAN BUNGA RAYA, 75100 MELAKA', x: 0.1, confidence: 0.9 }];
    expect(extract(till({ head: head('KEDAI RUNCIT MESRA 5/B 1234567-X}') })).values.seller_name).toBe('KEDAI RUNCIT MESRA S/B');
    expect(extract(till({ head: head('MESRA NIAGA SUN BHO') })).values.seller_name).toBe('MESRA NIAGA SDN BHD');
    expect(extract(till({ head: head('Mesra Niaga Shn Bhd') })).values.seller_name).toBe('Mesra Niaga Sdn Bhd');
  });

  it('joins a legal name that the narrow paper wraps over three lines', () => {
    const head: Row[] = [
      { text: 'TECK SENG HARDWARE', x: 0.14, confidence: 0.9 },
      { text: 'ENTERPRISE (SERI', x: 0.14, confidence: 0.9 },
      { text: 'KEMBANGAN) SDN BHD', x: 0.2, confidence: 0.9 },
      { text: '654321-A', x: 0.42, confidence: 0.8 },
      { text: 'NO. 8, JALAN MAWAR 2, 81200 JOHOR BAHRU', x: 0.1, confidence: 0.9 },
    ];
    expect(extract(till({ head })).values.seller_name).toBe('TECK SENG HARDWARE ENTERPRISE (SERI KEMBANGAN) SDN BHD');
  });

  it('restores a legal form OCR misread at the end of a letterhead name on a slip read as an invoice', () => {
    const slip: Row[] = [
      { text: 'HARBOUR LIGHT TRADING SDN 3HD', x: 0.2, confidence: 0.9 },
      { text: '(550150-A)', x: 0.35, confidence: 0.8 },
      { text: 'PASARAYA HARBOUR LIGHT', x: 0.25, confidence: 0.9 },
      { text: 'NO. 1 Jalan Euro 1, 40150 Shah Alam', x: 0.1, confidence: 0.9 },
      { text: 'TAX INVOICE', x: 0.35, confidence: 0.9 },
      [{ text: 'Invoice No: 195147', x: 0.06 }, { text: 'Date: 12-02-2018', x: 0.6 }],
      { text: 'Customer : ONG GUAT CHYE', x: 0.06 },
      item('RICE 10KG', '36.50'),
      item('Total Payable:', '36.50'),
    ];
    const outcome = extractDocument(placedDocument([slip], { language: 'en', source: 'ocr' }), { configuration: defaultExtractionConfiguration });
    expect(outcome.status === 'COMPLETED' && outcome.fields.find((field) => field.name === 'seller_name')?.value).toBe('HARBOUR LIGHT TRADING SDN BHD');
  });

  it('keeps a head name below high confidence when OCR doubted one of its words', () => {
    const seller = (confidence: number) => {
      const rows = till({ head: [{ text: 'KEDAI MAJU TRADING SDN BHD', x: 0.2, confidence }, { text: 'NO. 12, JALAN MERANTI 3, 47100 PUCHONG', x: 0.1, confidence: 0.9 }] });
      const outcome = extractDocument(placedDocument([rows], { language: 'en', source: 'ocr' }), { configuration: defaultExtractionConfiguration });
      return outcome.status === 'COMPLETED' ? outcome.fields.find((field) => field.name === 'seller_name') : undefined;
    };
    expect(seller(0.97)?.metadata.confidence).toBeGreaterThanOrEqual(0.9);
    expect(seller(0.86)?.value).toBe('KEDAI MAJU TRADING SDN BHD');
    expect(seller(0.86)?.metadata.confidence).toBeLessThan(0.9);
  });

  it('reads a head line the reader split at a wide gap as one line of the name, wrapped into the legal form under it', () => {
    const head: Row[] = [
      [{ text: 'NORTHERN', x: 0.08, confidence: 0.9 }, { text: 'SOUTHERN', x: 0.5, confidence: 0.9 }],
      { text: 'HARDWARE TRADING SDN. BHD', x: 0.08, confidence: 0.9 },
      { text: 'NO. 12, JALAN MERANTI 3, 47100 PUCHONG', x: 0.08, confidence: 0.9 },
    ];
    expect(extract(till({ head })).values.seller_name).toBe('NORTHERN SOUTHERN HARDWARE TRADING SDN. BHD');
  });

  it('takes the legal name under a brand line printed in a larger font, although the brand is as wide as the paper', () => {
    const head: Row[] = [
      // A brand of no trade (one naming its trade goes with the legal name, whatever its print).
      { text: 'SELERA KAMPUNG MELAKA KU', x: 0.1, confidence: 0.9, height: 0.024 },
      { text: 'PUTRA JAYA FOOD SDN. BHD.', x: 0.1, confidence: 0.9 },
      { text: 'NO. 12, JALAN MERANTI 3, 47100 PUCHONG', x: 0.1, confidence: 0.9 },
    ];
    // A legal form printed right keeps its dots.
    expect(extract(till({ head })).values.seller_name).toBe('PUTRA JAYA FOOD SDN. BHD.');
    // A brand naming its trade goes with the legal name, however large its print.
    const tradeBrand: Row[] = [{ text: 'RESTORAN SERI MELAKA DAN', x: 0.1, confidence: 0.9, height: 0.024 }, ...head.slice(1)];
    expect(extract(till({ head: tradeBrand })).values.seller_name).toBe('RESTORAN SERI MELAKA DAN PUTRA JAYA FOOD SDN. BHD.');
  });

  it('goes on with the next line after a head line that ends in "&"', () => {
    const head: Row[] = [
      { text: 'KEDAI MAJU HARDWARE &', x: 0.1, confidence: 0.9 },
      { text: 'ELECTRICAL', x: 0.3, confidence: 0.9 },
      { text: 'NO. 12, JALAN MERANTI 3, 47100 PUCHONG', x: 0.1, confidence: 0.9 },
    ];
    expect(extract(till({ head })).values.seller_name).toBe('KEDAI MAJU HARDWARE & ELECTRICAL');
  });

  it('joins a head line to the line under it that opens with "&", also with the ampersand OCR read as 9 or 8', () => {
    const head = (second: string): Row[] => [
      { text: 'THE GOLDEN LOTUS', x: 0.25, confidence: 0.9 },
      { text: second, x: 0.15, confidence: 0.9 },
      { text: 'NO. 12, JALAN MERANTI 3, 47100 PUCHONG', x: 0.1, confidence: 0.9 },
    ];
    expect(extract(till({ head: head('& JADE HOUSE (M) SDN. BHD.') })).values.seller_name).toBe('THE GOLDEN LOTUS & JADE HOUSE (M) SDN. BHD.');
    expect(extract(till({ head: head('9 JADE HOUSE (M) SDN. BHD.') })).values.seller_name).toBe('THE GOLDEN LOTUS & JADE HOUSE (M) SDN. BHD.');
  });

  it('takes no speck read as a word above the name for the seller', () => {
    const head: Row[] = [
      [{ text: 'TAX INVOICE', x: 0.3, confidence: 0.9 }, { text: 'Neve', x: 0.6, confidence: 0.9, height: 0.004 }],
      { text: 'KEDAI MAJU HARDWARE', x: 0.2, confidence: 0.9 },
      { text: 'NO. 12, JALAN MERANTI 3, 47100 PUCHONG', x: 0.1, confidence: 0.9 },
    ];
    expect(extract(till({ head })).values.seller_name).toBe('KEDAI MAJU HARDWARE');
  });

  it('takes no order-number line at the head for the seller', () => {
    const head: Row[] = [
      { text: 'Your order number 15', x: 0.2, confidence: 0.9 },
      { text: '', x: 0.2 },
      { text: 'Putra Jaya Food Sdn Bhd', x: 0.2, confidence: 0.9 },
      { text: '(65351-M)', x: 0.35, confidence: 0.9 },
      { text: 'NO. 12, JALAN MERANTI 3, 47100 PUCHONG', x: 0.1, confidence: 0.9 },
    ];
    expect(extract(till({ head })).values.seller_name).toBe('Putra Jaya Food Sdn Bhd');
  });

  it('repairs the head name as OCR misreads it: a registration number with a comma or a misread bracket after it, "5/0", "Sdn." without Bhd, a speck after the legal form, I read as 1', () => {
    const seller = sellerUnderHeadLine;
    const withComma: Row[] = [
      { text: 'URBAN VILLA SDN BHD (417940-M),', x: 0.2, confidence: 0.9 },
      { text: 'A-G-06, DATARAN GLOMAC,', x: 0.2, confidence: 0.9 },
      { text: 'JALAN SS6/5A, 47301 PETALING JAYA', x: 0.1, confidence: 0.9 },
    ];
    expect(extract(till({ head: withComma })).values.seller_name).toBe('URBAN VILLA SDN BHD');
    expect(seller('99 SPEED MART 5/0 {519537 Xi')).toBe('99 SPEED MART S/B');
    expect(seller('KEDAI MAJU S/D')).toBe('KEDAI MAJU S/B');
    expect(seller('ENW Hardware Centre (M) Sdn.')).toBe('ENW Hardware Centre (M) Sdn Bhd');
    expect(seller('BEMED (SP) SDN. BHD. Ÿ')).toBe('BEMED (SP) SDN. BHD.');
    expect(seller('URBAN 1DEA SDN BHD')).toBe('URBAN IDEA SDN BHD');
    expect(seller('MR. D.1.Y. (M) SDN BHD')).toBe('MR. D.I.Y. (M) SDN BHD');
    expect(seller('DIGI TELECOMMUNICATIONS SDN EHD')).toBe('DIGI TELECOMMUNICATIONS SDN BHD');
  });

  it('restores a legal form whose SDN lost a letter, or that a company number with digits read as letters follows, and reads no key in its misread colon', () => {
    const seller = sellerUnderHeadLine;
    expect(seller('KEDAI RUNCIT MESRA SN. BHD.')).toBe('KEDAI RUNCIT MESRA SDN. BHD.');
    expect(seller('Kedai Runcit Mesra Sc Bhd')).toBe('Kedai Runcit Mesra Sdn Bhd');
    // A company number 802720-U read "BOZ7ZO-U", after "SDN BHD" read "SUN DHD": "SUN" alone would be a weekday.
    expect(seller('MESRA NIAGA SUN DHD BOZ7ZO-U')).toBe('MESRA NIAGA SDN BHD');
    // A lower-case logo line over the legal name is no name; the colon OCR read into "SDN" makes no "key: value" line of the name.
    // (The legal name sits where a letter's address window would be, with its address under it, so
    // only the head rule tells it from a buyer's block.)
    const underLogo: Row[] = [
      { text: 'mesraMart', x: 0.3, confidence: 0.8, height: 0.024 },
      { text: '', x: 0.2 },
      { text: '', x: 0.2 },
      { text: 'TAX INVOICE', x: 0.35, confidence: 0.95 },
      { text: 'MESRA NIAGA SC: BHD', x: 0.2, confidence: 0.9 },
      { text: 'LOT 5, JALAN BUNGA RAYA, 75100 MELAKA', x: 0.2, confidence: 0.9 },
    ];
    expect(extract(till({ head: underLogo })).values.seller_name).toBe('MESRA NIAGA SDN BHD');
    // A name of its own that ends in a short word before BHD keeps it: the S must start the word.
    expect(seller('AEON CO. (M) BHD')).toBe('AEON CO. (M) BHD');
    expect(seller('TENAGA NASIONAL BHD')).toBe('TENAGA NASIONAL BHD');
  });

  it('passes over a head line of capitals OCR doubted in every word above a legal name read surely, keeping that name below high confidence', () => {
    const seller = (noise: string) => {
      const rows = till({
        head: [
          // A logo stands apart above the name, several lines high.
          { text: noise, x: 0.4, confidence: 0.55 },
          { text: '', x: 0.2 },
          { text: '', x: 0.2 },
          { text: '', x: 0.2 },
          { text: 'KEDAI MAJU TRADING SDN BHD', x: 0.2, confidence: 0.93 },
          { text: 'NO. 12, JALAN MERANTI 3, 47100 PUCHONG', x: 0.1, confidence: 0.93 },
        ],
      });
      const outcome = extractDocument(placedDocument([rows], { language: 'en', source: 'ocr' }), { configuration: defaultExtractionConfiguration });
      return outcome.status === 'COMPLETED' ? outcome.fields.find((field) => field.name === 'seller_name') : undefined;
    };
    expect(seller('ENT m Li')?.value).toBe('KEDAI MAJU TRADING SDN BHD');
    expect(seller('ENT m Li')?.metadata.confidence).toBeLessThan(0.9);
  });

  it('reads a bar or a bracket that opens nothing, attached to the letters of a head name, as the l or I OCR misread, below high confidence', () => {
    const seller = (name: string) => {
      const rows = till({ head: [{ text: name, x: 0.2, confidence: 0.95 }, { text: 'LOT 5, JALAN BUNGA RAYA, 75100 MELAKA', x: 0.1, confidence: 0.95 }] });
      const outcome = extractDocument(placedDocument([rows], { language: 'en', source: 'ocr' }), { configuration: defaultExtractionConfiguration });
      return outcome.status === 'COMPLETED' ? outcome.fields.find((field) => field.name === 'seller_name')?.metadata : undefined;
    };
    expect(extract(till({ head: [{ text: 'Kedai Hote] Melaka', x: 0.2, confidence: 0.95 }, { text: 'LOT 5, JALAN BUNGA RAYA, 75100 MELAKA', x: 0.1 }] })).values.seller_name).toBe('Kedai Hotel Melaka');
    expect(extract(till({ head: [{ text: 'KEDAI NASI KANDAR SR| MELAKA', x: 0.2, confidence: 0.95 }, { text: 'LOT 5, JALAN BUNGA RAYA, 75100 MELAKA', x: 0.1 }] })).values.seller_name).toBe('KEDAI NASI KANDAR SRI MELAKA');
    expect(seller('Kedai Hote] Melaka')?.confidence).toBeLessThan(0.9);
  });

  it('restores one letter OCR misread in a word of the trade of a head name ("ENTFRPRISE"), keeping both printed spellings of stationery and other words', () => {
    const seller = (name: string) => extract(till({ head: [{ text: name, x: 0.2, confidence: 0.95 }, { text: 'LOT 5, JALAN BUNGA RAYA, 75100 MELAKA', x: 0.1 }] })).values.seller_name;
    expect(seller('GOLDEN ARCH ENTFRPRISE')).toBe('GOLDEN ARCH ENTERPRISE');
    expect(seller('Golden Arch Hardwarc Sdn Bhd')).toBe('Golden Arch Hardware Sdn Bhd');
    expect(seller('GOLDEN ARCH STATIONARY')).toBe('GOLDEN ARCH STATIONARY');
    expect(seller('GOLDEN ARCH CONFECTIUNERY')).toBe('GOLDEN ARCH CONFECTIONERY');
    expect(seller('GOLDEN ARCH MARIGOLDS')).toBe('GOLDEN ARCH MARIGOLDS');
  });

  it('takes a line naming the company behind the brand ("Owner by ... S/B", OCR\'s "S/E") for the seller, not joined to the brand above it', () => {
    const head: Row[] = [
      { text: 'HARBOUR LIGHT TAPHOUSE BAR', x: 0.1, confidence: 0.9 },
      { text: 'Owner by Green Lantern S/E', x: 0.1, confidence: 0.9 },
      { text: 'NO. 12, JALAN MERANTI 3, 47100 PUCHONG', x: 0.1, confidence: 0.9 },
    ];
    expect(extract(till({ head })).values.seller_name).toBe('Owner by Green Lantern S/B');
  });

  it('reports a head name whose digit it read as a letter below high confidence', () => {
    const rows = till({ head: [{ text: 'URBAN 1DEA SDN BHD', x: 0.2, confidence: 0.97 }, { text: 'LOT 5, JALAN BUNGA RAYA, 75100 MELAKA', x: 0.1, confidence: 0.97 }] });
    const outcome = extractDocument(placedDocument([rows], { language: 'en', source: 'ocr' }), { configuration: defaultExtractionConfiguration });
    expect(outcome.status === 'COMPLETED' && outcome.fields.find((field) => field.name === 'seller_name')?.metadata.confidence).toBeLessThan(0.9);
  });

  it('drops the registration number printed after the name', () => {
    const head: Row[] = [{ text: 'AEON CO. (M) BHD (126926-H)', x: 0.28, confidence: 0.92 }, { text: '3RD FLR, AEON TAMAN MALURI SC', x: 0.26, confidence: 0.9 }];
    expect(extract(till({ head })).values.seller_name).toBe('AEON CO. (M) BHD');
  });

  it('reports no tax above the total: the digits of a tax id whose label OCR misread are no tax', () => {
    const head: Row[] = [
      { text: 'SINAR BAKERIES SDN BHD', x: 0.2, confidence: 0.9 },
      { text: 'Lot 3, Jalan Pelabur 23/1, 40300 Shah Alam', x: 0.1, confidence: 0.9 },
      [{ text: 'GST LD:', x: 0.1 }, { text: '1399040', x: 0.3 }],
    ];
    const totals = [item('Total 0% supplies:', '31.78'), item('Total 6% supplies:', '8.40'), item('Total Payable:', '40.18')];
    const { values } = extract(till({ head, totals }));
    expect(values.total_amount).toBe(40.18);
    expect(values.tax_amount ?? null).toBeNull();
  });

  it('reports no tax that is most of the total: the total on its "Total Incl. GST@6%" line is no tax, the summary\'s tax column is', () => {
    const totals: Row[] = [
      item('Total Incl. GST@6%', 'RM 3.90'),
      item('CASH', 'RM 4.00'),
      item('CHANGE', 'RM 0.10'),
      [{ text: 'GST Summary', x: 0.04 }, { text: 'Amt (RM)', x: 0.43 }, { text: 'Tax(RM)', x: 0.66 }],
      [{ text: 'GST S@6%', x: 0.04 }, { text: '3.68', x: 0.5 }, { text: '0.22', x: 0.72 }],
    ];
    const { values } = extract(till({ totals }));
    expect(values.total_amount).toBe(3.9);
    expect(values.tax_amount).toBe(0.22);
  });

  it('takes no house number for the receipt number: "NO. 12A, JALAN ..." opens an address line', () => {
    const head: Row[] = [
      { text: 'KEDAI BUKU CERIA', x: 0.3, confidence: 0.9 },
      { text: 'NO. 12A&14A, JALAN SETIA 3, 47100 PUCHONG', x: 0.08, confidence: 0.9 },
      { text: 'TEL: 03-8075 1234', x: 0.3, confidence: 0.9 },
    ];
    expect(extract(till({ head })).values.invoice_number ?? null).toBeNull();
    const numbered: Row[] = [...head, { text: 'NO. 48213', x: 0.08, confidence: 0.9 }];
    expect(extract(till({ head: numbered })).values.invoice_number).toBe('48213');
  });

  it('reports no net of zero under a positive total', () => {
    const totals = [item('Sub Total', '0.00'), item('Total', '28.75'), item('CASH', '50.00'), item('CHANGE', '21.25')];
    const { values } = extract(till({ totals }));
    expect(values.total_amount).toBe(28.75);
    expect(values.net_amount ?? null).toBeNull();
  });

  it('keeps a tax at the highest VAT rate, 27% of the net (21% of the total)', () => {
    const totals = [item('Net', '100.00'), item('VAT 27%', '27.00'), item('Total', '127.00'), item('CASH', '130.00'), item('CHANGE', '3.00')];
    const { values } = extract(till({ totals }));
    expect(values.total_amount).toBe(127);
    expect(values.tax_amount).toBe(27);
  });

  it('takes the total with tax, not the net, the tax, the cash tendered or the change', () => {
    const { values } = extract(till());
    expect(values.total_amount).toBe(28.75);
    expect(values.tax_amount).toBe(1.63);
  });

  it('takes the rounded total where cash is rounded to the coin', () => {
    const totals: Row[] = [item('Total Sales Incl GST', '80.91'), item('Rounding Adj', '-0.01'), item('Total After Adj Incl GST', '80.90'), item('CASH', '100.00'), item('Change Amt', '19.10')];
    expect(extract(till({ totals })).values.total_amount).toBe(80.9);
  });

  it('reads ringgit from the head of a receipt that prints no currency', () => {
    expect(extract(till()).values.currency).toBe('MYR');
  });
});

describe('till receipts titled as invoices', () => {
  it('routes a till slip whose bill number and dates sit in the head as a receipt: "Bill No" labels a field, it is no title', () => {
    const rows: Row[] = [
      { text: 'CAFE SERI PAGI SDN BHD', x: 0.25, confidence: 0.9 },
      { text: 'NO. 3, JALAN KENANGA 2, 43000 KAJANG', x: 0.12, confidence: 0.9 },
      { text: 'TAX INVOICE', x: 0.35, confidence: 0.9 },
      'Bill No: B-20931',
      'Bill Date: 02/08/2019',
      'Bill Start: 02/08/2019 12:01',
      'Cashier: NORA',
      item('NASI LEMAK', '8.50'),
      item('TEH TARIK', '2.50'),
      item('Total', '11.00'),
      item('CASH', '20.00'),
      item('CHANGE', '9.00'),
      'Closed Bill: 02/08/2019 12:40',
      'THANK YOU',
    ];
    expect(extract(rows).docType).toBe('receipt');
  });

  it('routes a till slip by its payment line, item count, operator and exchange terms when it names no cashier', () => {
    const rows: Row[] = [
      { text: 'HARDWARE MURAH (M) SDN BHD', x: 0.22, confidence: 0.9 },
      { text: 'LOT 7, JALAN PERUSAHAAN 4, 68100 BATU CAVES', x: 0.1, confidence: 0.9 },
      { text: '-TAX INVOICE-', x: 0.35, confidence: 0.9 },
      item('CABLE TIE 100PCS', '6.90'),
      'Item(s) : 1',
      item('Total Incl. GST', '6.90'),
      item('CASH', '10.00'),
      'OPERATOR AINA',
      'EXCHANGE ALLOWED WITHIN 7 DAYS',
    ];
    expect(extract(rows).docType).toBe('receipt');
  });
});

function extractTotal(rows: Row[]) {
  const outcome = extractDocument(placedDocument([rows], { language: 'en', source: 'ocr' }), { configuration: defaultExtractionConfiguration });
  if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
  return outcome.fields.find((field) => field.name === 'total_amount');
}

describe('till totals', () => {
  it('takes "Total (Inclusive of GST)", not "Total (Excluding GST)", where the tax qualifier is in parentheses', () => {
    const totals: Row[] = [item('Total (Excluding GST):', '41.30'), item('Serv. Charge (10%):', '4.13'), item('GST Payable:', '2.73'), item('Total (Inclusive of GST):', '48.16'), item('CASH :', '50.00')];
    const { values } = extract(till({ totals }));
    expect(values.total_amount).toBe(48.16);
    expect(values.net_amount).toBe(41.3);
    expect(values.tax_amount).toBe(2.73);
  });

  it('adds the rounding adjustment printed under the total when no rounded total is read', () => {
    const totals: Row[] = [item('Total Sales (Incl GST 6%)', '64.13'), item('Rounding Adjustment', '0.02'), item('Main Item Count', '1')];
    expect(extract(till({ totals })).values.total_amount).toBe(64.15);
  });

  it('leaves a total alone when the rounding line is printed above it (the total is already rounded)', () => {
    const totals: Row[] = [item('Total Excl. GST', '80.91'), item('Rounding', '-0.01'), item('Total Incl. GST', '80.90'), item('CASH', '100.00'), item('CHANGE', '19.10')];
    expect(extract(till({ totals })).values.total_amount).toBe(80.9);
  });

  it('takes the unlabelled amount under the tax line that equals net + tax when no total label was read', () => {
    const totals: Row[] = [item('Total Excl. GST', '27.12'), item('GST @6%', '1.63'), { text: '28.75', x: 0.78 }, item('Items: 2', '')];
    const total = extractTotal(till({ totals }));
    expect(total?.value).toBe(28.75);
    expect(total?.metadata.confidence).toBeLessThan(0.9);
  });

  it('finds the unlabelled sum under the tax line also when a tax summary at the foot repeats the tax', () => {
    const totals: Row[] = [
      [{ text: 'Sub Total', x: 0.06 }, { text: 'RM', x: 0.7 }, { text: '27.12', x: 0.78 }],
      // Faint print: the tax of the totals block is read less surely than its repetition at the foot.
      [{ text: 'GST/TAX 6%', x: 0.06 }, { text: '3', x: 0.5 }, { text: 'RM', x: 0.7 }, { text: '1.63', x: 0.78, confidence: 0.75 }],
      [{ text: 'TOZ, :', x: 0.06 }, { text: 'RM', x: 0.7 }, { text: '28.75', x: 0.78 }],
      item('Item Count: 2', ''),
      item('Thank You, Please come again', ''),
      { text: 'GST Summary Amount (RM) Tax (RM)', x: 0.06 },
      { text: 'SR @ 6%', x: 0.06 },
      [{ text: '27.12', x: 0.15 }, { text: '1.63', x: 0.25 }],
    ];
    expect(extractTotal(till({ totals }))?.value).toBe(28.75);
  });

  it('takes the total of a line whose tax qualifier has words around it ("Total Amt Incl. GST @ 6%", "Total RM Incl. of GST"), not a tax', () => {
    for (const label of ['Total Amt Incl. GST @ 6% :', 'Total RM Incl. of GST', 'Total After Adj Inc] GST']) {
      const totals: Row[] = [item('Sub Total', '27.12'), item(label, '28.75'), item('Item Count', '2')];
      const { values } = extract(till({ totals }));
      expect(values.total_amount).toBe(28.75);
      expect(values.tax_amount ?? null).toBeNull();
    }
  });

  it('still reads a tax line of its own that says the total includes it ("Incl. GST: 1.63")', () => {
    const totals: Row[] = [item('Total', '28.75'), item('Incl. GST:', '1.63'), item('CASH', '50.00'), item('CHANGE', '21.25')];
    const { values } = extract(till({ totals }));
    expect(values.total_amount).toBe(28.75);
    expect(values.tax_amount).toBe(1.63);
  });

  it('takes no figure of the tax summary\'s total row for the total: it adds up supplies before tax and the tax', () => {
    const summary = (totalRow: Row): Row[] => [
      item('Item Count', '2'),
      { text: 'GST SUMMARY', x: 0.06 },
      [{ text: 'CODE', x: 0.06 }, { text: 'AMOUNT (RM)', x: 0.4 }, { text: 'TAX (RM)', x: 0.7 }],
      [{ text: 'SR 6%', x: 0.06 }, { text: '27.12', x: 0.45 }, { text: '1.63', x: 0.75 }],
      totalRow,
    ];
    // The total line was not read: the summary's total row gives net plus tax.
    const unread = [item('Sub Total (Excl)', '27.12'), item('TOTAL', ''), ...summary([{ text: 'TOTAL :', x: 0.06 }, { text: '27.12', x: 0.45 }, { text: '1.63', x: 0.75 }])];
    expect(extract(till({ totals: unread })).values.total_amount).toBe(28.75);
    // Net, tax and gross printed on the row: the gross.
    const gross = [item('TOTAL', ''), ...summary([{ text: 'Total', x: 0.06 }, { text: '27.12', x: 0.35 }, { text: '1.63', x: 0.55 }, { text: '28.75', x: 0.75 }])];
    expect(extract(till({ totals: gross })).values.total_amount).toBe(28.75);
  });

  it('takes cash tendered minus change for the total when no total line was read, below high confidence', () => {
    const totals: Row[] = [item('Sub Total', '565.50'), item('\\ wffos (Inclusive of GST) :', '599.45'), item('CASH :', '599.45'), item('Change :', '0.00')];
    const total = extractTotal(till({ totals }));
    expect(total?.value).toBe(599.45);
    expect(total?.metadata.confidence).toBeLessThan(0.9);
  });

  it('takes no item amount under the "TOTAL" heading of the item table for the total', () => {
    const rows: Row[] = [
      ...till({ totals: [] }).slice(0, 7),
      [{ text: 'QTY ITEM', x: 0.06 }, { text: 'TOTAL', x: 0.78 }],
      item('1 Nasi Lemak Set', '14.95'),
      item('2 Teh Tarik', '5.40'),
      [{ text: 'Take Out Total (incl GST)', x: 0.06 }, { text: '20.35', x: 0.78 }],
      item('Change', '0.00'),
      'THANK YOU, PLEASE COME AGAIN',
    ];
    expect(extract(rows).values.total_amount).toBe(20.35);
  });

  it('takes the rounded total that a rounding line prints ("Rounding RM 182.00" under "Total Sales RM 181.98")', () => {
    const totals: Row[] = [item('Total Sales (Inclusive GST) RM', '181.98'), item('Rounding Adjustment RM', '„02'), item('Rounding RM', '182.00'), item('CREDIT RM', '182.00')];
    expect(extract(till({ totals })).values.total_amount).toBe(182);
  });

  it('takes the total rounded to the coin when cash tendered minus change says so and no rounding line was read, below high confidence', () => {
    const totals: Row[] = [item('Total Sales (Inclusive GST) RM', '14.38'), item('Kounding Adjustment RH', '02'), item('CASH RM', '20.00'), item('CHANGE RM', '5.60')];
    const total = extractTotal(till({ totals }));
    expect(total?.value).toBe(14.4);
    expect(total?.metadata.confidence).toBeLessThan(0.9);
  });

  it('trusts a total that cash tendered minus change confirms', () => {
    const totals: Row[] = [item('Sub Total', '12.20'), item('Total', '12.20'), item('CASH', '20.00'), item('CHANGE', '7.80')];
    const total = extractTotal(till({ totals }));
    expect(total?.value).toBe(12.2);
    expect(total?.metadata.confidence).toBeGreaterThanOrEqual(0.93);
  });

  it('takes the amount payable, not a total of the supplies at one tax rate ("Total 0% supplies")', () => {
    // A delivery slip that lists its supplies by tax rate, then what the shop pays for all of them.
    const slip: Row[] = [
      { text: 'ROTI SEGAR BAKERIES SDN BHD', x: 0.2, confidence: 0.9 },
      { text: 'LOT 8, JALAN PERUSAHAAN 2, 68100 BATU CAVES', x: 0.1, confidence: 0.9 },
      { text: 'TAX INVOICE / DELIVERY NOTE', x: 0.25, confidence: 0.9 },
      [{ text: 'Inv No.: 88120455', x: 0.06 }, { text: 'Date: 03/04/2018', x: 0.6 }],
      item('WHITE LOAF 6 x 2.40', '14.40'),
      item('WHOLEMEAL 5 x 2.75', '13.75'),
      item('Total 0% supplies:', '28.15'),
      item('CHOC ROLL 4 x 1.90', '7.60'),
      item('Total 6% supplies (Excl. GST):', '7.60'),
      item('Total 6% supplies (Incl. GST):', '8.06'),
      // The slip repeats the zero-rated supplies beside the taxed ones, above what is payable.
      item('Total 0% supplies:', '28.15'),
      item('Total Payable:', '36.21'),
    ];
    expect(extract(slip).values.total_amount).toBe(36.21);
  });

  it('adds up the rate lines of a tax summary when no total of all of them is read, and doubts a printed total they do not add up to', () => {
    const slip = (payable: Row[]): Row[] => [
      { text: 'ROTI SEGAR BAKERIES SDN BHD', x: 0.2, confidence: 0.9 },
      { text: 'LOT 8, JALAN PERUSAHAAN 2, 68100 BATU CAVES', x: 0.1, confidence: 0.9 },
      { text: 'TAX INVOICE / DELIVERY NOTE', x: 0.25, confidence: 0.9 },
      [{ text: 'Inv No.: 88120455', x: 0.06 }, { text: 'Date: 03/04/2018', x: 0.6 }],
      item('WHITE LOAF 5 x 2.46', '12.30'),
      item('Total 0% supplies:', '12.30'),
      item('CHOC ROLL 4 x 2.50', '10.00'),
      item('Total 6% supplies (Excl. GST):', '10.00'),
      item('Total 6% supplies (Incl. GST):', '10.60'),
      item('Total 0% supplies:', '12.30'),
      ...payable,
      { text: 'Goods received in good order and condition', x: 0.06 },
    ];
    // The line with what is payable was lost: the rates add up to it.
    const lost = extractTotal(slip([]));
    expect(lost?.value).toBe(22.9);
    expect(lost?.metadata.confidence).toBeLessThan(0.9);
    // Printed, and the rates agree with it.
    expect(extractTotal(slip([item('Total Payable:', '22.90')]))?.value).toBe(22.9);
    // Printed and misread (22.98): kept as printed, below high confidence.
    const misread = extractTotal(slip([item('TOTAL:', '22.98')]));
    expect(misread?.metadata.confidence).toBeLessThan(0.9);
  });

  it('adds up the rate rows of a tax summary table where the total\'s label was not read and the page prints their sum', () => {
    // The total's label came out as noise; the summary's rows give supplies and tax at each rate.
    const slip = (summary: Row[], printed = '21.40'): Row[] => till({ totals: [[{ text: 'fatal A dk nding', x: 0.06, confidence: 0.3 }, { text: printed, x: 0.78 }], ...summary] });
    // Amounts before tax: 6% of 20.19 is 1.21, so the rate's gross is 21.40.
    const beforeTax: Row[] = [
      [{ text: 'GST Rate', x: 0.04 }, { text: 'Amt Excl GST(RM)', x: 0.4 }, { text: 'Tax (RM)', x: 0.72 }],
      [{ text: 'SR = 6%', x: 0.04 }, { text: '20.19', x: 0.5 }, { text: '1.21', x: 0.78 }],
      [{ text: 'ZR = 0%', x: 0.04 }, { text: '0.00', x: 0.5 }, { text: '0.00', x: 0.78 }],
    ];
    const found = extractTotal(slip(beforeTax));
    expect(found?.value).toBe(21.4);
    expect(found?.metadata.confidence).toBeLessThan(0.9);
    // Amounts with their tax, read from the arithmetic (0.38 is 6/106 of 6.70): 6.70 + 14.70 = 21.40.
    const withTax: Row[] = [
      [{ text: 'GST Summary', x: 0.04 }, { text: 'Amount (RM)', x: 0.43 }, { text: 'Tax (RM)', x: 0.66 }],
      [{ text: 'SR (06%)', x: 0.04 }, { text: '6.70', x: 0.5 }, { text: '0.38', x: 0.72 }],
      [{ text: 'ZRL (00%)', x: 0.04 }, { text: '14.70', x: 0.5 }, { text: '0.00', x: 0.72 }],
    ];
    expect(extractTotal(slip(withTax))?.value).toBe(21.4);
    // A sum the page prints nowhere else (a rate row lost, or the amount misread) is no total.
    expect(extractTotal(slip(beforeTax, '21.90'))?.value ?? null).not.toBe(21.4);
  });

  it('takes the company heading a delivery slip, its region in parentheses, as the seller, not the shop it delivered to', () => {
    const slip: Row[] = [
      { text: 'ROTI SEGAR BAKERIES (KL) SDN BHD (139386 X)', x: 0.1, confidence: 0.85 },
      { text: 'LOT 8, JALAN PERUSAHAAN 2, 68100 BATU CAVES', x: 0.1, confidence: 0.9 },
      { text: 'GST ID: 600381399040', x: 0.1, confidence: 0.9 },
      { text: 'TAX INVOICE / ADJUSTMENT NOTE', x: 0.25, confidence: 0.9 },
      [{ text: 'Cash Inv No.: 88120455', x: 0.06 }, { text: 'Date: 03/04/2018', x: 0.6 }],
      '', '', '', '', '', '', '', '',
      { text: 'PASAR SEGAR MART SDN BHD', x: 0.06, confidence: 0.9 },
      { text: '47500 SUBANG JAYA, SELANGOR', x: 0.06 },
      item('WHITE LOAF 6 x 2.40', '14.40'),
      item('Total Payable:', '14.40'),
    ];
    expect(extract(slip).values.seller_name).toBe('ROTI SEGAR BAKERIES (KL) SDN BHD');
  });

  it('restores the decimal point OCR lost in a total when the digits are the net plus the tax, below high confidence', () => {
    const totals: Row[] = [item('3 Item(s) Total (MYR):', '30.00'), item('GST @ 6% :', '1.80'), item('Net Total (MYR):', '3180'), item('Rounding', '0.00')];
    const total = extractTotal(till({ totals }));
    expect(total?.value).toBe(31.8);
    expect(total?.metadata.confidence).toBeLessThan(0.9);
  });

  it('takes the amount after "Total Inclusive of Tax" (the tax word ends the label, it labels no tax)', () => {
    const totals: Row[] = [
      item('Total Inclusive of Tax', '28.75'),
      item('Rounding Adjustment', '0.00'),
      item('SubTotal', '28.75'),
      item('CASH', '50.00'),
      item('Change', '21.25'),
    ];
    expect(extractTotal(till({ totals }))?.value).toBe(28.75);
  });

  it('takes no item count printed as "Item Total" for the total', () => {
    const totals: Row[] = [item('Item Total', '2'), item('CASH', '50.00'), item('CHANGE', '21.25')];
    expect(extractTotal(till({ totals }))?.value).not.toBe(2);
  });

  it('checks the total against cash tendered minus change when the till prints the cash tendered as a deduction ("Cash -50.00")', () => {
    const total = extractTotal(till({ totals: [item('Total RM Incl. of GST', '9.65'), item('Cash', '-50.00'), item('CHANGE', '40.35')] }));
    expect(total?.value).toBe(9.65);
    expect(total?.metadata.confidence).toBeGreaterThanOrEqual(0.93);
  });

  it('reads "Paid Amount" and "Payment" above the change as the amount tendered', () => {
    const unread = extractTotal(till({ totals: [item('Total Amt Incl GST@ 6% :', 'T42'), item('Paid Amount:', '10.00'), item('Change:', '2.60')] }));
    expect(unread?.value).toBe(7.4);
    const confirmed = extractTotal(till({ totals: [item('Grand Total', '6.70'), item('Payment :', '50.00'), item('Change Due :', '43.30')] }));
    expect(confirmed?.metadata.confidence).toBeGreaterThanOrEqual(0.93);
  });

  it('takes the cash tendered for a total whose line was not read on a slip that prints no change line, at low confidence; not where a change line is printed', () => {
    const exact = extractTotal(till({ totals: [item('TOTAL AMOUNT', ''), item('CASH', 'RM 50.00')] }));
    expect(exact?.value).toBe(50);
    expect(exact?.metadata.confidence).toBeLessThan(0.6);
    expect(extractTotal(till({ totals: [item('TOTAL AMOUNT', ''), item('CASH', 'RM 50.00'), item('CHANGE', '')] }))?.value ?? null).toBeNull();
  });

  it('reads "Received" above the change as the amount tendered, "Cash Received" as one label', () => {
    const totals = (received: string): Row[] => [item('Gross Amt:', '136 0O'), item(received, '150.00'), item('Change', '14.00')];
    expect(extractTotal(till({ totals: totals('Received') }))?.value).toBe(136);
    expect(extractTotal(till({ totals: totals('Cash Received :') }))?.value).toBe(136);
  });

  it('does not check the total against a tendered amount grouped by a space (a speck before the amount: "7 100.00")', () => {
    const withoutPayment = extractTotal(till({ totals: [item('Total Inclusive GST:', '6.40'), item('TOTAL:', '6.40')] }));
    const withMisreadPayment = extractTotal(till({ totals: [item('Total Inclusive GST:', '6.40'), item('TOTAL:', '6.40'), item('Cash Received :', '7 100.00'), item('Change :', '93.60')] }));
    expect(withMisreadPayment?.value).toBe(6.4);
    expect(withMisreadPayment?.metadata.confidence).toBe(withoutPayment?.metadata.confidence);
  });

  it('takes cash tendered minus change, below high confidence, over a total read as a whole number ("5:15" for 5.75)', () => {
    const total = extractTotal(till({ totals: [item('Total RM Incl. of GST', '5:15'), item('CASH', '50.00'), item('CHANGE', '44.25')] }));
    expect(total?.value).toBe(5.75);
    expect(total?.metadata.confidence).toBeLessThan(0.9);
  });

  it('doubts a total that cash tendered minus change contradicts (one of them was misread)', () => {
    const confirmed = extractTotal(till({ totals: [item('Sub Total', '7.40'), item('NET TOTAL', '1.40'), item('CASH', '7.40'), item('CHANGE', '6.00')] }));
    const contradicted = extractTotal(till({ totals: [item('Sub Total', '7.40'), item('NET TOTAL', '1.40'), item('CASH', '7.40'), item('CHANGE', '0.00')] }));
    expect(contradicted?.value).toBe(1.4);
    expect(contradicted?.metadata.confidence).toBeLessThan(0.6);
    expect(contradicted?.metadata.confidence).toBeLessThan(confirmed?.metadata.confidence ?? 0);
  });
});

describe('receipt dates by the country on the page', () => {
  it('reads an ambiguous date day-first on a Singapore receipt priced in US dollars', () => {
    const head: Row[] = [
      { text: 'HARBOUR GIFTS PTE LTD', x: 0.25, confidence: 0.9 },
      { text: '2 MARINA BOULEVARD, SINGAPORE 018987', x: 0.12, confidence: 0.9 },
      { text: 'UEN 201912345K', x: 0.3, confidence: 0.9 },
    ];
    const rows = till({ head, totals: [item('Total USD', '27.50'), item('CASH USD', '30.00'), item('CHANGE USD', '2.50')] }).map((row) =>
      Array.isArray(row) && row[1]?.text === '17/03/2018 14:22' ? [row[0] as PlacedText, { ...row[1], text: '04/05/2023 14:22' }] : row,
    );
    const { values } = extract(rows);
    expect(values.currency).toBe('USD');
    expect(values.issue_date).toBe('2023-05-04');
  });

  it('reads an ambiguous date month-first on a US receipt that prints no currency sign', () => {
    const head: Row[] = [
      { text: 'CORNER HARDWARE LLC', x: 0.25, confidence: 0.9 },
      { text: '120 MAIN STREET, AUSTIN, TEXAS 78701, USA', x: 0.1, confidence: 0.9 },
      { text: 'TEL +1 512 555 0100', x: 0.3, confidence: 0.9 },
    ];
    const rows = till({ head }).map((row) =>
      Array.isArray(row) && row[1]?.text === '17/03/2018 14:22' ? [row[0] as PlacedText, { ...row[1], text: '04/05/2023 14:22' }] : row,
    );
    expect(extract(rows).values.issue_date).toBe('2023-04-05');
  });
});

describe('receipt currency from stray signs', () => {
  it('takes the currency of the country the page names over a lone foreign sign away from any amount (OCR of "&" as "£")', () => {
    const head: Row[] = [
      { text: 'KL HANDICRAFT £ TAILORING', x: 0.2, confidence: 0.8 },
      { text: 'NO. 18, JALAN KANCIL, 55100 KUALA LUMPUR, MALAYSIA', x: 0.05, confidence: 0.9 },
    ];
    expect(extract(till({ head })).values.currency).toBe('MYR');
  });

  it('takes the currency of the country a photographed page clearly names over a foreign currency read only once ("RM" read as "zł", "KR600" a product code)', () => {
    const head: Row[] = [
      { text: 'KL HANDICRAFT SDN BHD', x: 0.2, confidence: 0.9 },
      { text: 'NO. 18, JALAN KANCIL, 55100 KUALA LUMPUR, MALAYSIA', x: 0.05, confidence: 0.9 },
    ];
    for (const misread of ['zł', 'KR']) {
      const totals: Row[] = [item('Total', `${misread} 28.75`), item('CASH', '30.00'), item('CHANGE', '1.25')];
      expect(extract(till({ head, totals })).values.currency).toBe('MYR');
    }
    // A foreign currency printed on several lines is the currency, wherever the shop is.
    const inPounds: Row[] = [item('Total', '£ 28.75'), item('CASH', '£ 30.00'), item('CHANGE', '£ 1.25')];
    expect(extract(till({ head, totals: inPounds })).values.currency).toBe('GBP');
  });

  it('still takes a foreign sign printed beside an amount', () => {
    const head: Row[] = [
      { text: 'KL HANDICRAFT & TAILORING', x: 0.2, confidence: 0.8 },
      { text: 'NO. 18, JALAN KANCIL, 55100 KUALA LUMPUR, MALAYSIA', x: 0.05, confidence: 0.9 },
    ];
    const totals: Row[] = [item('Total', '£ 28.75'), item('CASH', '£ 30.00'), item('CHANGE', '£ 1.25')];
    expect(extract(till({ head, totals })).values.currency).toBe('GBP');
  });
});

describe('receipt dates OCR misread by one digit', () => {
  const withDateRow = (dateRow: Row): Row[] => till().map((row) => (Array.isArray(row) && row[1]?.text === '17/03/2018 14:22' ? dateRow : row));
  function issueDate(rows: Row[], source: 'ocr' | 'text-layer' = 'ocr') {
    const outcome = extractDocument(placedDocument([rows], { language: 'en', source }), { configuration: defaultExtractionConfiguration });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    return outcome.fields.find((field) => field.name === 'issue_date');
  }

  it('repairs a labelled date whose day does not exist as read ("92/02/2019": a 0 read as 9), below high confidence', () => {
    const date = issueDate(withDateRow([{ text: 'Cashier: AMIRA', x: 0.06 }, { text: 'Date: 92/02/2019', x: 0.6 }]));
    expect(date?.value).toBe('2019-02-02');
    expect(date?.metadata.confidence).toBeLessThan(0.9);
  });

  it('repairs an unlabelled date whose year does not exist as read ("14-03-2619": a 0 read as 6), below high confidence', () => {
    const date = issueDate(withDateRow([{ text: 'Cashier: AMIRA', x: 0.06 }, { text: '14-03-2619  11:34:45 AM', x: 0.6 }]));
    expect(date?.value).toBe('2019-03-14');
    expect(date?.metadata.confidence).toBeLessThan(0.9);
  });

  it('leaves a date alone on a text page, where no digit is misread', () => {
    expect(issueDate(withDateRow([{ text: 'Cashier: AMIRA', x: 0.06 }, { text: 'Date: 92/02/2019', x: 0.6 }]), 'text-layer')?.value).toBeNull();
  });
});

describe('receipt seller names spelt again on the page', () => {
  const head = (name: string): Row[] => [
    { text: name, x: 0.25, confidence: 0.9 },
    { text: 'NO. 12, JALAN MERANTI 3, 47100 PUCHONG', x: 0.1, confidence: 0.9 },
    { text: 'TEL: 03-8075 1234', x: 0.3, confidence: 0.9 },
  ];
  const withFoot = (rows: Row[], foot: string): Row[] => [...rows, { text: foot, x: 0.15 }];
  const seller = (rows: Row[]) => {
    const outcome = extractDocument(placedDocument([rows], { language: 'en', source: 'ocr' }), { configuration: defaultExtractionConfiguration });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    return outcome.fields.find((field) => field.name === 'seller_name');
  };

  it('corrects the one letter OCR misread in the head name where the e-mail address spells it, below high confidence', () => {
    const name = seller(withFoot(till({ head: head('SINAR MOTD SPARES SDN BHD') }), 'Email: sales@sinarmotospares.com.my'));
    expect(name?.value).toBe('SINAR MOTO SPARES SDN BHD');
    expect(name?.metadata.confidence).toBeLessThan(0.9);
  });

  it('keeps the name as read where the address spells it the same, or spells another name', () => {
    expect(seller(withFoot(till({ head: head('SINAR MOTO SPARES SDN BHD') }), 'Email: sales@sinarmotospares.com.my'))?.value).toBe('SINAR MOTO SPARES SDN BHD');
    expect(seller(withFoot(till({ head: head('SINAR MOTD SPARES SDN BHD') }), 'www.kedaimajujaya.com'))?.value).toBe('SINAR MOTD SPARES SDN BHD');
  });

  it('keeps a letter beside an ampersand, which the address spells as a letter of its own', () => {
    // "K&L" in an address is "knl": against "kl" one letter seems misread, the K, and it is not.
    expect(seller(withFoot(till({ head: head('K&L MOTOR SPARES') }), 'Email: knlmotorspares@gmail.com'))?.value).toBe('K&L MOTOR SPARES');
  });
});

describe('till receipts of other countries', () => {
  /** A North American restaurant or drugstore slip: name, street, town with its state and ZIP code. */
  const slip = (head: Row[], totals: Row[]): Row[] => [
    ...head,
    { text: 'Server: Kelly   Table 12', x: 0.06 },
    { text: 'Date: 11/05/2026  7:14 PM', x: 0.06 },
    item('Pancakes', '17.00'),
    item('Coffee', '11.00'),
    ...totals,
    { text: 'Thank you!', x: 0.35 },
  ];
  const totalsWithTip: Row[] = [item('Subtotal', '28.00'), item('Tax', '2.52'), item('Total', '30.52'), item('Tip', '6.00'), item('Grand Total', '36.52')];

  it('take the name over a store number, and never the town line of the address', () => {
    const head: Row[] = [
      { text: 'WALGREENS #4521', x: 0.3, confidence: 0.95 },
      { text: '1200 Broadway', x: 0.3, confidence: 0.95 },
      { text: 'Nashville, TN 37203', x: 0.28, confidence: 0.95 },
    ];
    const { values } = extract(slip(head, [item('Subtotal', '28.00'), item('Tax', '2.52'), item('Total', '30.52')]));
    expect(values.seller_name).toBe('WALGREENS');
    expect(values.currency).toBe('USD');
    expect(values.issue_date).toBe('2026-11-05');
    // With the name unread (a logo), the town and state over their ZIP code are still no seller.
    const unnamed = extract(slip(head.slice(1), [item('Subtotal', '28.00'), item('Tax', '2.52'), item('Total', '30.52')]));
    expect(unnamed.values.seller_name ?? null).not.toBe('Nashville, TN');
  });

  it('take a name that ends in a word a label begins with ("THE GREEN TABLE"), not the "Table 12" line', () => {
    const head: Row[] = [
      { text: 'THE GREEN TABLE', x: 0.3, confidence: 0.95 },
      { text: '45 Market St', x: 0.32, confidence: 0.95 },
      { text: 'San Francisco, CA 94105', x: 0.25, confidence: 0.95 },
    ];
    expect(extract(slip(head, totalsWithTip)).values.seller_name).toBe('THE GREEN TABLE');
  });

  it('take the total with the tip where the slip prints their sum under the tip, at the confidence of the total', () => {
    const head: Row[] = [{ text: 'BLUE MOON DINER', x: 0.3, confidence: 0.95 }, { text: '512 Main St, Austin TX 78701', x: 0.2, confidence: 0.95 }];
    const outcome = extractDocument(placedDocument([slip(head, totalsWithTip)], { language: 'en', source: 'ocr' }), { configuration: defaultExtractionConfiguration });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    const total = outcome.fields.find((field) => field.name === 'total_amount');
    expect(total?.value).toBe(36.52);
    // Net plus tax is the total before the tip: the sum rule holds, so the total is not doubted for it.
    expect(total?.metadata.confidence).toBeGreaterThan(0.9);
    // A tip with no sum printed under it leaves the total as printed (the tip may be a suggestion).
    expect(extract(slip(head, [item('Subtotal', '28.00'), item('Tax', '2.52'), item('Total', '30.52'), item('Tip', '6.00')])).values.total_amount).toBe(30.52);
    // An amount under the tip that is not total plus tip is no total with the tip.
    expect(extract(slip(head, [item('Subtotal', '28.00'), item('Tax', '2.52'), item('Total', '30.52'), item('Tip', '6.00'), item('Grand Total', '36.00')])).values.total_amount).toBe(30.52);
  });

  it('read a Mexican slip\'s "$" as pesos, from the legal form, the RFC or the city', () => {
    const mexican = (headLine: string, sign = '$ ') =>
      extract([
        { text: 'OXXO', x: 0.4, confidence: 0.95 },
        { text: headLine, x: 0.1, confidence: 0.95 },
        { text: 'FECHA: 27/11/2026 14:32', x: 0.06 },
        item('COCA COLA 600ML', '18.50'),
        item('PAN BIMBO', '52.00'),
        item('TOTAL', `${sign}70.50`),
        item('EFECTIVO', `${sign}100.00`),
        item('CAMBIO', `${sign}29.50`),
      ]).values;
    expect(mexican('CADENA COMERCIAL OXXO SA DE CV')).toMatchObject({ currency: 'MXN', total_amount: 70.5, issue_date: '2026-11-27' });
    expect(mexican('RFC: CCO8605231N4').currency).toBe('MXN');
    expect(mexican('AV. REFORMA 222, CDMX').currency).toBe('MXN');
    // The same slip with Argentina's tax id is in pesos of Argentina; with Brazil's and no sign, in reais.
    expect(mexican('C.U.I.T. 30-71234567-8').currency).toBe('ARS');
    expect(mexican('CNPJ 12.345.678/0001-90', '').currency).toBe('BRL');
  });

  it('read the total of a Vietnamese slip printed without its accents ("Tong cong")', () => {
    const { values } = extract([
      { text: 'HIGHLANDS COFFEE', x: 0.25, confidence: 0.95 },
      { text: '135 Nam Ky Khoi Nghia, Ho Chi Minh', x: 0.1, confidence: 0.95 },
      { text: '27/11/2026 09:30', x: 0.06 },
      item('Phin Sua Da', '35.000'),
      item('Banh Mi', '29.000'),
      item('Tong cong', '64.000 VND'),
      item('Tien mat', '100.000'),
      item('Tien thua', '36.000'),
    ]);
    expect(values).toMatchObject({ currency: 'VND', total_amount: 64000, issue_date: '2026-11-27' });
  });

  it('read a Polish paragon: "SUMA PLN" is the total, "SUMA PTU" its tax', () => {
    const { values } = extract([
      { text: 'Jeronimo Martins Polska S.A.', x: 0.1, confidence: 0.95 },
      { text: 'NIP 779-10-11-327', x: 0.25, confidence: 0.95 },
      { text: 'PARAGON FISKALNY', x: 0.25 },
      { text: '2026-11-27 18:05', x: 0.06 },
      item('Chleb zytni 1 x 4,99', '4,99A'),
      item('Mleko 2 x 3,29', '6,58A'),
      item('SPRZEDAZ OPODATKOWANA A', '11,57'),
      item('PTU A 5,00%', '0,55'),
      item('SUMA PTU', '0,55'),
      item('SUMA PLN', '11,57'),
      item('Karta', '11,57'),
    ]);
    expect(values).toMatchObject({ currency: 'PLN', total_amount: 11.57, tax_amount: 0.55, issue_date: '2026-11-27' });
  });

  it('take the name after a running number the till prints before it on its line ("#000417 LUMIERE (M) Sdn Bhd")', () => {
    const { values } = extract(
      till({
        head: [
          { text: '#000417 LUMIERE (M) Sdn Bhd', x: 0.15, confidence: 0.92 },
          { text: 'COMPANY NO (702211-K)', x: 0.25, confidence: 0.92 },
          { text: 'PAVILION MALL, LEVEL 3', x: 0.22, confidence: 0.92 },
          { text: 'GST ID : 000765432100', x: 0.25, confidence: 0.92 },
        ],
      }),
    );
    expect(values.seller_name).toBe('LUMIERE (M) Sdn Bhd');
  });

  it('take a name printed over two lines whole where its company number closes it on a line of its own', () => {
    const head = (third: PlacedText): Row[] => [
      { text: 'KEDAI KOPI LAMAN', x: 0.28, confidence: 0.93 },
      { text: 'LAMAN SELERA', x: 0.32, confidence: 0.93 },
      third,
      { text: '22, JALAN PUDU, 55100 KUALA LUMPUR', x: 0.12, confidence: 0.93 },
    ];
    expect(extract(till({ head: head({ text: '001234567-W', x: 0.34, confidence: 0.93 }) })).values.seller_name).toBe('KEDAI KOPI LAMAN LAMAN SELERA');
    // Without the number, the second line may be a tagline under the name: the first line alone.
    expect(extract(till({ head: head({ text: 'TEL: 03-2141 5566', x: 0.3, confidence: 0.93 }) })).values.seller_name).toBe('KEDAI KOPI LAMAN');
  });

  it('restore the point of a total read as a whole number where the amount it totals is printed above it with its cents', () => {
    const totals = (total: string): Row[] => [item('TOTAL', total), item('CASH', '20.00'), { text: 'THANK YOU, PLEASE COME AGAIN', x: 0.2 }];
    const rows = (total: string): Row[] => [
      { text: 'KEDAI ROTI MAWAR', x: 0.3, confidence: 0.95 },
      { text: 'JALAN IPOH, 51200 KUALA LUMPUR', x: 0.15, confidence: 0.95 },
      { text: 'RECEIPT', x: 0.4 },
      { text: '04/05/2017 07:19', x: 0.06 },
      item('BAKERY TRAY 18X14', '12.00'),
      ...totals(total),
    ];
    expect(extract(rows('1200')).values.total_amount).toBe(12);
    // A whole number with no such amount above it is kept as read (a currency without cents prints none).
    const noCents: Row[] = [
      { text: 'TOKO SARI ROTI', x: 0.3, confidence: 0.95 },
      { text: 'JL. MERDEKA 12, BANDUNG', x: 0.2, confidence: 0.95 },
      { text: 'RECEIPT', x: 0.4 },
      { text: '04/05/2017 07:19', x: 0.06 },
      item('ROTI TAWAR', '1200'),
      item('TOTAL', '1200'),
      item('TUNAI', '2000'),
      item('KEMBALI', '800'),
    ];
    expect(extract(noCents).values.total_amount).toBe(1200);
  });

  it('take a brand that names its trade with the legal name under it; any other brand stays apart', () => {
    const head = (brand: PlacedText, legalName = 'Kembang Niaga Sdn Bhd (704512-T)'): Row[] => [
      brand,
      { text: legalName, x: 0.12, confidence: 0.93 },
      { text: 'Bangsar Outlet', x: 0.3, confidence: 0.93 },
      { text: 'NO. 8, JALAN TELAWI 2, 59100 KUALA LUMPUR', x: 0.08, confidence: 0.93 },
    ];
    expect(extract(till({ head: head({ text: 'KEMBANG HARDWARE', x: 0.3, confidence: 0.93 }) })).values.seller_name).toBe('KEMBANG HARDWARE Kembang Niaga Sdn Bhd');
    // Whether the brand goes with the legal name is a bookkeeping convention: never certain.
    // The head's candidate carries the ceiling, whatever the score it would otherwise reach.
    const sure: Row[] = [{ text: 'KEMBANG HARDWARE', x: 0.3, confidence: 0.99 }, { text: 'Kembang Niaga Sdn Bhd (704512-T)', x: 0.12, confidence: 0.99 }, { text: 'NO. 8, JALAN TELAWI 2, 59100 KUALA LUMPUR', x: 0.08, confidence: 0.99 }];
    const [candidate] = receiptHeadCandidates(buildDocumentLayout(placedDocument([till({ head: sure })], { language: 'en', source: 'ocr' })), 'seller_name');
    expect(candidate).toMatchObject({ value: 'KEMBANG HARDWARE Kembang Niaga Sdn Bhd', confidenceCeiling: 0.85 });
    // A brand the legal name already spells out is not repeated in front of it.
    expect(extract(till({ head: head({ text: 'KEMBANG HARDWARE', x: 0.3, confidence: 0.93 }, 'Kembang Hardware Sdn Bhd (704512-T)') })).values.seller_name).toBe('Kembang Hardware Sdn Bhd');
    // A brand of no trade ("SunnyBay") and a legal name that says it runs the brand stay apart.
    expect(extract(till({ head: head({ text: 'SunnyBay', x: 0.38, confidence: 0.93 }) })).values.seller_name).toBe('Kembang Niaga Sdn Bhd');
    expect(extract(till({ head: head({ text: 'KEMBANG HARDWARE', x: 0.3, confidence: 0.93 }, 'Owned by Kembang Niaga Sdn Bhd') })).values.seller_name).toBe('Owned by Kembang Niaga Sdn Bhd');
  });
});
