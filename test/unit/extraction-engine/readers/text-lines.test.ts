import { describe, expect, it } from 'vitest';
import type { TextLine } from '../../../../src/extraction-engine/document.ts';
import { groupIntoRows, unplacedLines } from '../../../../src/extraction-engine/readers/text-lines.ts';

function placedLine(text: string, x: number, y: number, height = 0.015): TextLine {
  return { text, words: [], placement: { x, y, width: 0.1, height } };
}

describe('groupIntoRows', () => {
  it('puts side-by-side lines in one row, left to right, and rows top to bottom', () => {
    const lines = [placedLine('30064443', 0.25, 0.364), placedLine('Kundennr.', 0.62, 0.3645), placedLine('Rechnungsnr.', 0.09, 0.3642), placedLine('Rechnung', 0.09, 0.338)];

    const rows = groupIntoRows(lines);

    expect(rows.map((row) => row.map((line) => line.text))).toEqual([['Rechnung'], ['Rechnungsnr.', '30064443', 'Kundennr.']]);
  });

  it('starts a new row when a line is centred below the current row', () => {
    const rows = groupIntoRows([placedLine('upper', 0.1, 0.5), placedLine('lower', 0.5, 0.51)]);

    expect(rows.map((row) => row.map((line) => line.text))).toEqual([['upper'], ['lower']]);
  });

  it('keeps lines without placement in their order, one per row', () => {
    const rows = groupIntoRows(unplacedLines('first\nsecond'));

    expect(rows.map((row) => row.map((line) => line.text))).toEqual([['first'], ['second']]);
  });
});
