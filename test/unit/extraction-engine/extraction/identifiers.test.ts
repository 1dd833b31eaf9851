import { describe, expect, it } from 'vitest';
import { embeddedValueFor } from '../../../../src/extraction-engine/fields/extract-fields.ts';
import type { FieldSpecification } from '../../../../src/extraction-engine/fields/field-specification.ts';
import { findValuesAfterLabel } from '../../../../src/extraction-engine/values/field-value.ts';
import { findIbans, hasValidIbanChecksum, isValidIban, parseIban } from '../../../../src/extraction-engine/values/iban.ts';
import { findIdentifierAtStart } from '../../../../src/extraction-engine/values/identifier.ts';
import { findVatIds, parseVatId } from '../../../../src/extraction-engine/values/vat-id.ts';

describe('IBAN', () => {
  it('normalizes printed groups and checks mod 97', () => {
    expect(parseIban('DE08 7009 0100 1234 5678 90')).toBe('DE08700901001234567890');
    expect(parseIban('iban: nl50 ingb 0683 2513 09')).toBe('NL50INGB0683251309');
    expect(parseIban('FR76 10107 00245 00617052317 39')).toBe('FR7610107002450061705231739');
  });

  it('rejects a wrong check digit, a wrong length and unknown countries', () => {
    expect(parseIban('DE09700901001234567890')).toBeUndefined();
    expect(parseIban('DE0870090100123456789')).toBeUndefined();
    expect(parseIban('US1234567890')).toBeUndefined();
    expect(hasValidIbanChecksum('GB82WEST12345698765432')).toBe(true);
    expect(hasValidIbanChecksum('GB82WEST12345698765433')).toBe(false);
  });

  it.each([
    ['Germany', 'DE89 3704 0044 0532 0130 00'],
    ['United Kingdom', 'GB29 NWBK 6016 1331 9268 19'],
    ['France', 'FR14 2004 1010 0505 0001 3M02 606'],
    ['Netherlands', 'NL91 ABNA 0417 1643 00'],
    ['Belgium', 'BE68 5390 0754 7034'],
    ['Norway', 'NO93 8601 1117 947'],
    ['Malta', 'MT84 MALT 0110 0001 2345 MTLC AST0 01S'],
    ['Saudi Arabia', 'SA03 8000 0000 6080 1016 7519'],
    ['Brazil', 'BR97 0036 0305 0000 1000 9795 493P 1'],
  ])('accepts a valid IBAN of %s', (_country, printed) => {
    const iban = printed.replace(/ /g, '');

    expect(isValidIban(iban)).toBe(true);
    expect(parseIban(printed)).toBe(iban);
    expect(findValuesAfterLabel('iban', `: ${printed}`)).toEqual([expect.objectContaining({ value: iban, quality: 1 })]);
  });

  it.each([
    ['a sample number of a country without IBANs', 'US1234567890'],
    ['wrong check digits', 'DE88 3704 0044 0532 0130 00'],
    ['two digits swapped', 'GB29 NWBK 6016 1331 9268 91'],
    ['a sample with placeholder digits', 'DE12 1234 5678 9012 3456 78'],
    ['a German one too short for its country', 'DE12 1234 4321 9876 00'],
    ['a valid one with a character too many', 'NL91 ABNA 0417 1643 001'],
    ['an unknown country code', 'XX82 WEST 1234 5698 7654 32'],
  ])('reports nothing for %s, even right after an IBAN label', (_case, printed) => {
    expect(parseIban(printed)).toBeUndefined();
    expect(findValuesAfterLabel('iban', `: ${printed}`)).toEqual([]);
    expect(findValuesAfterLabel('iban', `: ${printed} BIC: ABCDEFGH`)).toEqual([]);
    expect(findIbans(`IBAN ${printed}`)).toEqual([]);
  });

  it('finds nothing after the label when the number is not there or not an IBAN', () => {
    expect(findValuesAfterLabel('iban', ': 1234 5678 90')).toEqual([]);
    expect(findValuesAfterLabel('iban', ' Konto 0012345678 BLZ 37050198')).toEqual([]);
  });

  it('takes an e-invoice\'s declared IBAN only when it is a valid one', () => {
    const iban = { name: 'iban', type: 'iban' } as FieldSpecification;
    expect(embeddedValueFor(iban, 'DE89 3704 0044 0532 0130 00')).toBe('DE89370400440532013000');
    expect(embeddedValueFor(iban, 'DE12 1234 4321 9876 00')).toBeUndefined();
    expect(embeddedValueFor(iban, 'DE12123456789012345678')).toBeUndefined();
    expect(embeddedValueFor(iban, 'not an account')).toBeUndefined();
  });

  it('finds IBANs inside running text and stops at the country length', () => {
    const found = findIbans('IBAN-Nr.: DE08 7009 0100 1234 5678 90 H A 123 and IBAN DE30507500940000048567');
    expect(found.map((iban) => iban.iban)).toEqual(['DE08700901001234567890', 'DE30507500940000048567']);
  });
});

describe('VAT ids', () => {
  it.each([
    ['DE 232 446 240', 'DE232446240'],
    ['NL810433941B01', 'NL810433941B01'],
    ['FR60421938861', 'FR60421938861'],
    ['ATU12345678', 'ATU12345678'],
    ['CHE-123.456.789 MWST', 'CHE123456789MWST'],
    ['PL 774-000-14-54', 'PL7740001454'],
    ['GB123456789', 'GB123456789'],
  ])('reads %s', (text, vatId) => {
    expect(parseVatId(text)).toBe(vatId);
  });

  it('accepts a bare national number only when asked to', () => {
    expect(parseVatId('774-00-01-454')).toBeUndefined();
    expect(parseVatId('774-00-01-454', { allowBareNumber: true })).toBe('7740001454');
  });

  it('rejects ids that do not fit the country format', () => {
    expect(parseVatId('DE12345')).toBeUndefined();
    expect(parseVatId('NL810433941')).toBeUndefined();
  });

  it('takes a Romanian CUI without leading zeros only: a till reference read as "RO00118085" is none', () => {
    expect(parseVatId('RO 18547290')).toBe('RO18547290');
    expect(parseVatId('RO00118085')).toBeUndefined();
  });

  it('finds a prefixed id in a footer line', () => {
    expect(findVatIds('Im Internet: www.example.de UStId DE 232 446 240 SWIFT HELADEF1GEL').map((found) => found.vatId)).toEqual(['DE232446240']);
  });
});

describe('findIdentifierAtStart', () => {
  it.each([
    [': 42183017', '42183017'],
    ['No : # BLR_WFLD20151000982590', 'BLR_WFLD20151000982590'],
    ['n°562044387 du 02 Juillet 2015', '562044387'],
    ['Nr. 471102 vom 05.03.2018', '471102'],
    [' INV/2023/03/0008', 'INV/2023/03/0008'],
    ['nr: F 1234K20/1234/12', 'F 1234K20/1234/12'],
    [' 00.123.456.7-2018-1 vom', '00.123.456.7-2018-1'],
    [' invoice_number_1', 'invoice_number_1'],
  ])('reads %j as %s', (text, identifier) => {
    expect(findIdentifierAtStart(text)?.identifier).toBe(identifier);
  });

  it.each([[': Summary'], [' 05.03.2018'], ['  '], [': Datum']])('finds nothing in %j', (text) => {
    expect(findIdentifierAtStart(text)).toBeUndefined();
  });

  it('joins digit groups that OCR split, only when asked to', () => {
    expect(findIdentifierAtStart(' 471 1 02', { joinSplitDigits: true })).toMatchObject({ identifier: '471102', length: 8 });
    expect(findIdentifierAtStart(' 471 1 02')?.identifier).toBe('471');
    expect(findIdentifierAtStart(' 42 12.05.2020', { joinSplitDigits: true })?.identifier).toBe('42');
  });

  it('rates short bare numbers lower than typical references', () => {
    expect(findIdentifierAtStart(' 42')?.quality).toBeLessThan(findIdentifierAtStart(' RE-2019/507')?.quality ?? 0);
  });
});
