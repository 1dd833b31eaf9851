import { describe, expect, it } from 'vitest';
import { cellText, counted, formatTable, listSummary, regularNoun, type TableColumn } from '../../../src/cli/table-format.ts';

interface Row {
  id: string;
  count?: number;
  value?: unknown;
}

const columns: TableColumn<Row>[] = [
  { header: 'ID', value: (row) => row.id },
  { header: 'COUNT', value: (row) => row.count, alignRight: true },
  { header: 'VALUE', value: (row) => row.value },
];

describe('formatTable', () => {
  it('pads every column to its widest cell, numbers to the right, with no trailing spaces', () => {
    const table = formatTable(columns, [
      { id: 'ext_1', count: 7, value: 'short' },
      { id: 'ext_22', count: 1234, value: 'a longer value' },
    ]);

    expect(table).toBe(['ID      COUNT  VALUE', 'ext_1       7  short', 'ext_22   1234  a longer value'].join('\n'));
  });

  it('prints only the header when there are no rows', () => {
    expect(formatTable(columns, [])).toBe('ID  COUNT  VALUE');
  });

  it('cuts a cell longer than the maximum with an ellipsis, and keeps each row on one line', () => {
    const table = formatTable(columns, [{ id: 'ext_1', value: 'line one\nline two and much more text' }], { maxCellWidth: 12 });

    expect(table.split('\n')).toEqual(['ID     COUNT  VALUE', 'ext_1         line one li…']);
  });

  it('counts characters, not UTF-16 units, when padding', () => {
    const table = formatTable([{ header: 'NAME', value: (row: { name: string }) => row.name }, { header: 'X', value: () => 'x' }], [{ name: '𝒜da' }, { name: 'Bob' }]);

    expect(table.split('\n')).toEqual(['NAME  X', '𝒜da   x', 'Bob   x']);
  });

  it('styles the header cells it is given a style for, after padding', () => {
    const table = formatTable(columns, [], { styleHeader: (text) => `<${text}>` });

    expect(table).toBe('<ID>  <COUNT>  <VALUE>');
  });
});

describe('cellText', () => {
  it('shows strings as they are, nothing for a missing value, and other values as compact JSON', () => {
    expect([cellText('text'), cellText(undefined), cellText(null), cellText(4.11), cellText(false), cellText({ a: [1] })]).toEqual(['text', '', '', '4.11', 'false', '{"a":[1]}']);
  });
});

describe('listSummary', () => {
  const deliveries = { one: 'delivery', many: 'deliveries' };

  it('says an empty list is empty, with no page range', () => {
    expect(listSummary({ page: 0, totalItems: 0, totalPages: 0 }, 0, deliveries)).toBe('No deliveries.');
  });

  it('counts in the plural the noun is given, and the singular for one', () => {
    expect(listSummary({ page: 0, totalItems: 2, totalPages: 1 }, 2, deliveries)).toBe('2 deliveries.');
    expect(listSummary({ page: 0, totalItems: 1, totalPages: 1 }, 1, regularNoun('extraction'))).toBe('1 extraction.');
  });

  it('says where in the pages a page is, and how to get the next', () => {
    expect(listSummary({ page: 0, totalItems: 120, totalPages: 3 }, 50, regularNoun('run'))).toBe('120 runs; page 0 of pages 0 to 2; --page 1 for the next.');
    expect(listSummary({ page: 2, totalItems: 120, totalPages: 3 }, 20, regularNoun('run'))).toBe('120 runs; page 2 of pages 0 to 2.');
  });

  it('says a page past the end holds nothing, and where the items are', () => {
    expect(listSummary({ page: 4, totalItems: 3, totalPages: 1 }, 0, regularNoun('event'))).toBe('No events on page 4: 3 events on page 0.');
  });
});

describe('counted', () => {
  it('puts the count before the singular or plural', () => {
    expect([counted(0, regularNoun('run')), counted(1, regularNoun('run')), counted(7, { one: 'delivery', many: 'deliveries' })]).toEqual(['0 runs', '1 run', '7 deliveries']);
  });
});
