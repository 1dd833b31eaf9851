import { describe, expect, it } from 'vitest';
import { cellText, formatTable, type TableColumn } from '../../../src/cli/table-format.ts';

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
