import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/cli-errors.ts';
import { fieldIdNamed } from '../../../src/cli/extraction-commands.ts';

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
