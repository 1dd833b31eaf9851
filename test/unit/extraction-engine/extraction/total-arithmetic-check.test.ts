import { describe, expect, it } from 'vitest';
import { defaultExtractionConfiguration } from '../../../../src/extraction-engine/configuration/parse-extraction-configuration.ts';
import type { DocumentPage } from '../../../../src/extraction-engine/document.ts';
import { totalArithmeticCheck } from '../../../../src/extraction-engine/extract-document.ts';
import { placedPage, type Row } from './read-document-builder.ts';

// A till page read by OCR whose total does not add up with what the page prints to check it: the
// field finder names the lines to read again and says whether a page read again agrees.

const item = (name: string, amount: string): Row => [{ text: name, x: 0.06, confidence: 0.9 }, { text: amount, x: 0.78, confidence: 0.9 }];

function till(totals: Row[]): DocumentPage {
  return placedPage(
    1,
    [
      { text: 'WARUNG SRI INDAH SDN BHD', x: 0.2, confidence: 0.9 },
      { text: 'NO. 4, JALAN KENANGA 7, 81200 JOHOR BAHRU', x: 0.1, confidence: 0.9 },
      [{ text: 'Cashier: LINA', x: 0.06, confidence: 0.9 }, { text: '02/05/2018 12:41', x: 0.6, confidence: 0.9 }],
      item('NASI LEMAK', '7.00'),
      ...totals,
      { text: 'THANK YOU, PLEASE COME AGAIN', x: 0.2, confidence: 0.9 },
    ],
    'ocr',
    0.022,
  );
}

const check = totalArithmeticCheck({ configuration: defaultExtractionConfiguration });
const textsOf = (page: DocumentPage, indices: number[]) => indices.map((index) => page.lines[index]!.text);
const withAmount = (page: DocumentPage, from: string, to: string): DocumentPage => ({
  ...page,
  lines: page.lines.map((line) => (line.text === from ? { ...line, text: to, words: line.words.map((word) => ({ ...word, text: word.text.replace(from, to) })) } : line)),
});

describe('totalArithmeticCheck', () => {
  it('names the total line and the tendered and change lines when tendered minus change is not the total', () => {
    const page = till([item('NET TOTAL', '1.40'), item('Cash', '7.40'), item('CHANGE', '0.00')]);

    expect(check.agrees(page)).toBe(false);
    expect(textsOf(page, check.linesToReread(page))).toEqual(['1.40', '7.40', '0.00']);
    // The digit read again: the page now agrees, and nothing is left to read again.
    const repaired = withAmount(page, '1.40', '7.40');
    expect(check.agrees(repaired)).toBe(true);
    expect(check.linesToReread(repaired)).toEqual([]);
  });

  it('names the rounding line too when the total was rounded by it', () => {
    const page = till([item('Total Sales Incl GST', '93.37'), item('Rounding Adj', '-0.02'), item('CASH', '100.00'), item('Change', '1.65')]);

    expect(textsOf(page, check.linesToReread(page))).toEqual(['93.37', '-0.02', '100.00', '1.65']);
    expect(check.agrees(withAmount(page, '93.37', '98.37'))).toBe(true);
  });

  it('names nothing on a page that adds up or prints nothing to check the total against', () => {
    expect(check.linesToReread(till([item('TOTAL', '7.40'), item('Cash', '10.00'), item('CHANGE', '2.60')]))).toEqual([]);
    const unchecked = till([item('TOTAL', '7.40')]);
    expect(check.linesToReread(unchecked)).toEqual([]);
    expect(check.agrees(unchecked)).toBe(false);
  });

  it('checks net plus tax where no payment is printed, and the tax summary rate lines before them', () => {
    const taxed = till([item('Sub Total', '20.00'), item('GST 6%', '1.20'), item('TOTAL', '27.20')]);
    expect(textsOf(taxed, check.linesToReread(taxed))).toEqual(['20.00', '1.20', '27.20']);
    expect(check.agrees(withAmount(taxed, '27.20', '21.20'))).toBe(true);

    const rates = till([item('Total Payable', '33.85'), item('Total 6% supplies (Incl. GST)', '25.44'), item('Total 0% supplies', '7.61')]);
    expect(check.agrees(rates)).toBe(false);
    expect(textsOf(rates, check.linesToReread(rates))).toContain('33.85');
    expect(check.agrees(withAmount(rates, '33.85', '33.05'))).toBe(true);
  });
});
