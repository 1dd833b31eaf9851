import { describe, expect, it } from 'vitest';
import { parseBoolean } from '../../../../src/extraction-engine/values/boolean.ts';
import { parseEmail } from '../../../../src/extraction-engine/values/email.ts';
import { parseEnum } from '../../../../src/extraction-engine/values/enum.ts';
import { findValuesAfterLabel, parseValueOfType } from '../../../../src/extraction-engine/values/field-value.ts';
import { parseInteger, parseNumber } from '../../../../src/extraction-engine/values/number.ts';
import { cleanPartyName, findCompanyNames, hasLegalForm } from '../../../../src/extraction-engine/values/party-name.ts';
import { parsePhone } from '../../../../src/extraction-engine/values/phone.ts';

describe('numbers', () => {
  it('reads numbers and integers with either decimal separator', () => {
    expect(parseNumber('-3,5')).toBe(-3.5);
    expect(parseNumber('1 234,56')).toBe(1234.56);
    expect(parseNumber('abc')).toBeUndefined();
    expect(parseInteger('12')).toBe(12);
    expect(parseInteger('1.000')).toBe(1000);
    expect(parseInteger('12,5')).toBeUndefined();
  });
});

describe('booleans, e-mails, phones, enums', () => {
  it.each([['Ja', true], ['oui', true], ['TAK', true], ['✓', true], ['nein', false], ['Non', false], ['nee', false]])('reads %s', (text, value) => {
    expect(parseBoolean(text)).toBe(value);
  });

  it('reads e-mail addresses and rejects text around them', () => {
    expect(parseEmail('Info@Example.COM')).toBe('info@example.com');
    expect(parseEmail('mailto:a.b@c.de')).toBe('a.b@c.de');
    expect(parseEmail('write to a@b.de')).toBeUndefined();
  });

  it('writes phones as E.164 when the country is known', () => {
    expect(parsePhone('+49 6051 916 44 10')).toBe('+4960519164410');
    expect(parsePhone('0049 (0) 6051 91644')).toBe('+49605191644');
    expect(parsePhone('06051 916 44 10', { language: 'de' })).toBe('+4960519164410');
    expect(parsePhone('(555) 23 78 -0')).toBe('55523780');
    expect(parsePhone('call me')).toBeUndefined();
  });

  it('matches enum values ignoring case and accents, and refuses two matches', () => {
    expect(parseEnum('PAYÉ', ['payé', 'ouvert'])).toBe('payé');
    expect(parseEnum('Status: open', ['open', 'closed'])).toBe('open');
    expect(parseEnum('open or closed', ['open', 'closed'])).toBeUndefined();
  });
});

describe('party names', () => {
  it.each([
    ['QualityHosting AG - Uferweg 40-42 - D-63571 Gelnhausen', 'QualityHosting AG'],
    ['Acme GmbH | Europa-Allee 1980 | 60486 Frankfurt,', 'Acme GmbH'],
    ['FACTUUR. Coolblue B.V.', 'Coolblue B.V.'],
    ['All AWS Services are sold by Amazon Web Services, Inc.', 'Amazon Web Services, Inc.'],
    ['Polski Koncern Naftowy ORLEN S.A.', 'Polski Koncern Naftowy ORLEN S.A.'],
    ['Firma Handlowa Sp. z o.o.', 'Firma Handlowa Sp. z o.o.'],
    ['Metallbau Leipzig GmbH & Co. KG', 'Metallbau Leipzig GmbH & Co. KG'],
    ['Drogerie Müller GmbH + Co. KG', 'Drogerie Müller GmbH + Co. KG'],
    // "& Co." followed by the legal form: both end the name.
    ['Schreinerei Holz & Co. GmbH', 'Schreinerei Holz & Co. GmbH'],
    ['Smith & Co. Ltd', 'Smith & Co. Ltd'],
    // A region or branch in parentheses belongs to the legal name; a registration number after it does not.
    ['Holzwerk Brunner (Schweiz) AG', 'Holzwerk Brunner (Schweiz) AG'],
    ['ROTI SEGAR BAKERIES (KL) SDN BHD (139386 X)', 'ROTI SEGAR BAKERIES (KL) SDN BHD'],
    ['Kestrel Tools (North East) Ltd', 'Kestrel Tools (North East) Ltd'],
  ])('finds the company in %j', (text, name) => {
    expect(findCompanyNames(text)[0]?.name).toBe(name);
  });

  it('does not start a company name with a parenthesised remark', () => {
    expect(findCompanyNames('(see terms) Ltd')).toEqual([]);
    expect(findCompanyNames('Paid to (Kestrel) Ltd')).toEqual([]);
  });

  it('does not mistake words for legal forms', () => {
    expect(hasLegalForm('as agreed, the agent')).toBe(false);
    expect(findCompanyNames('Payment as agreed')).toEqual([]);
  });

  it('cleans a name printed after a party label', () => {
    expect(cleanPartyName('ATTN: iViveLabs Limited')).toBe('iViveLabs Limited');
    expect(cleanPartyName('WS Retail Services Pvt. Ltd.,')).toBe('WS Retail Services Pvt. Ltd.');
    expect(cleanPartyName('Herr')).toBeUndefined();
    expect(cleanPartyName('12345 Berlin')).toBeUndefined();
    expect(cleanPartyName('triddel9@fake.com')).toBeUndefined();
    expect(cleanPartyName('(Not to be used for payment remittance)')).toBeUndefined();
  });
});

describe('findValuesAfterLabel', () => {
  it('returns every amount of a row, first and last preferred over the middle', () => {
    const found = findValuesAfterLabel('amount', ' 1062,60 15,00 1056,05 200,65 1256,70');
    expect(found.map((value) => value.value)).toEqual([1062.6, 15, 1056.05, 200.65, 1256.7]);
    expect(found[2]?.quality).toBeLessThan(found[4]?.quality ?? 0);
  });

  it('keeps a space-grouped amount whole when it stands alone in its column', () => {
    expect(findValuesAfterLabel('amount', ' :   1 218,00').map((value) => value.value)).toEqual([1218]);
    expect(findValuesAfterLabel('amount', ' 1 278.61 40.39 319.00').map((value) => value.value)).toEqual([1, 278.61, 40.39, 319]);
  });

  it('uses configured patterns for strings and enums', () => {
    const found = findValuesAfterLabel('string', ': PO-77 (urgent)', { patterns: [/PO-(\d+)/u] });
    expect(found[0]?.value).toBe('77');
    expect(findValuesAfterLabel('string', ': nothing here', { patterns: [/PO-(\d+)/u] })).toEqual([]);
  });

  it('reads VAT ids with or without a country prefix after a label', () => {
    expect(findValuesAfterLabel('string', ' 774-00-01-454', { shape: 'vat-id' })[0]?.value).toBe('7740001454');
    expect(findValuesAfterLabel('string', ': DE 123 456 789', { shape: 'vat-id' })[0]?.value).toBe('DE123456789');
  });
});

describe('parseValueOfType', () => {
  it('normalizes whole values per type', () => {
    expect(parseValueOfType('amount', '1.589,80')).toBe(1589.8);
    expect(parseValueOfType('amount', 119)).toBe(119);
    expect(parseValueOfType('date', '31.01.2014')).toBe('2014-01-31');
    expect(parseValueOfType('currency', '€')).toBe('EUR');
    expect(parseValueOfType('iban', 'DE34 5019 0000 0012 3456 78')).toBe('DE34501900000012345678');
    expect(parseValueOfType('integer', '7')).toBe(7);
    expect(parseValueOfType('boolean', 'yes')).toBe(true);
    expect(parseValueOfType('enum', 'Closed', { allowedValues: ['open', 'closed'] })).toBe('closed');
  });

  it('refuses values that fail their type', () => {
    expect(parseValueOfType('date', '2014-02-30')).toBeUndefined();
    expect(parseValueOfType('iban', 'DE35501900000012345678')).toBeUndefined();
    expect(parseValueOfType('integer', 1.5)).toBeUndefined();
    expect(parseValueOfType('boolean', 7)).toBeUndefined();
    expect(parseValueOfType('string', '  ')).toBeUndefined();
  });
});

describe('date ranges after a label', () => {
  const dateAfter = (text: string, dateInRange?: 'start' | 'end') => findValuesAfterLabel('date', text, dateInRange ? { dateInRange } : {})[0]?.value;

  it('takes the last day of a printed period where the field asks for it, the first otherwise', () => {
    expect(dateAfter(': 01.09.13 - 30.09.13', 'end')).toBe('2013-09-30');
    expect(dateAfter(': 01.10.2018 bis 31.10.2018', 'end')).toBe('2018-10-31');
    expect(dateAfter(' du 01/03/2024 au 31/03/2024', 'end')).toBe('2024-03-31');
    expect(dateAfter(': 01.09.13 - 30.09.13')).toBe('2013-09-01');
  });

  it('keeps the first date when the second is not the end of a range', () => {
    expect(dateAfter(': 05.03.2024, Lieferschein vom 04.03.2024', 'end')).toBe('2024-03-05');
  });
});
