import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/cli-errors.ts';
import { correctedValueFromText, fieldIdNamed } from '../../../src/cli/extraction-commands.ts';

function extractionWith(fields: Array<{ id: string; name: string }>): Parameters<typeof fieldIdNamed>[0] {
  return { id: 'ext_1', output: { fields: fields.map((field) => ({ ...field, type: 'string', value: 'x' })) } };
}

describe('fieldIdNamed', () => {
  const extraction = extractionWith([
    { id: 'fld_A', name: 'invoice_number' },
    { id: 'fld_B', name: 'total_amount' },
  ]);

  it('finds a field by its name', () => {
    expect(fieldIdNamed(extraction, 'total_amount')).toBe('fld_B');
  });

  it('takes a field id as it is', () => {
    expect(fieldIdNamed(extraction, 'fld_A')).toBe('fld_A');
  });

  it('refuses a name no field has, listing the names there are', () => {
    expect(() => fieldIdNamed(extraction, 'totl')).toThrow(new UsageError('ext_1 has no field named or with the id totl: its fields are invoice_number, total_amount.'));
    expect(() => fieldIdNamed({ id: 'ext_2' }, 'total_amount')).toThrow(/ext_2 has no field named or with the id total_amount: it has no fields/);
  });

  it('refuses a name two fields share, naming their ids', () => {
    const repeated = extractionWith([
      { id: 'fld_1', name: 'line_total' },
      { id: 'fld_2', name: 'line_total' },
    ]);

    expect(() => fieldIdNamed(repeated, 'line_total')).toThrow('ext_1 has 2 fields named line_total; give one of their ids: fld_1, fld_2.');
  });
});

describe('correctedValueFromText', () => {
  it('reads a number for amount, number and integer fields', () => {
    expect(correctedValueFromText({ name: 'total_amount', type: 'amount' }, '279.84')).toBe(279.84);
    expect(correctedValueFromText({ name: 'count', type: 'integer' }, ' 7 ')).toBe(7);
    expect(correctedValueFromText({ name: 'rate', type: 'number' }, '-0.5')).toBe(-0.5);
  });

  it('sends text that is not a number as it is, so the API names the problem', () => {
    expect(correctedValueFromText({ name: 'total_amount', type: 'amount' }, '279,84')).toBe('279,84');
    expect(correctedValueFromText({ name: 'total_amount', type: 'amount' }, ' ')).toBe(' ');
  });

  it('reads true and false for a boolean field only', () => {
    expect(correctedValueFromText({ name: 'paid', type: 'boolean' }, 'true')).toBe(true);
    expect(correctedValueFromText({ name: 'paid', type: 'boolean' }, 'false')).toBe(false);
    expect(correctedValueFromText({ name: 'paid', type: 'boolean' }, 'yes')).toBe('yes');
    expect(correctedValueFromText({ name: 'note', type: 'string' }, 'true')).toBe('true');
  });

  it('keeps text, dates and codes as text, even when they look like numbers', () => {
    expect(correctedValueFromText({ name: 'invoice_number', type: 'string' }, '00042')).toBe('00042');
    expect(correctedValueFromText({ name: 'issue_date', type: 'date' }, '2024-03-15')).toBe('2024-03-15');
  });

  it('reads a table as a JSON list of rows, and refuses text that is not JSON with an example', () => {
    expect(correctedValueFromText({ name: 'line_items', type: 'table' }, '[{"description":"Paper","amount":12.5}]')).toEqual([{ description: 'Paper', amount: 12.5 }]);
    expect(() => correctedValueFromText({ name: 'line_items', type: 'table' }, 'Paper 12.5')).toThrow(UsageError);
  });
});
