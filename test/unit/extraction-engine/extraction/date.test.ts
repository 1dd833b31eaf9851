import { describe, expect, it } from 'vitest';
import { findDates, findRepairedDates, inferNumericDateOrder, parseDate, parseDateTime } from '../../../../src/extraction-engine/values/date.ts';

describe('parseDate', () => {
  it.each([
    ['2014-05-07', '2014-05-07'],
    ['2014/05/07', '2014-05-07'],
    ['05.03.2013', '2013-03-05'],
    ['5.3.2013', '2013-03-05'],
    ['21.05.14', '2014-05-21'],
    ['8-9-2022', '2022-09-08'],
    ['31/12/2017', '2017-12-31'],
  ])('reads numeric %s', (text, iso) => {
    expect(parseDate(text)).toBe(iso);
  });

  it.each([
    ['7. Mai 2014', '2014-05-07'],
    ['3. März 2021', '2021-03-03'],
    ['02 Juillet 2015', '2015-07-02'],
    ['1er janvier 2020', '2020-01-01'],
    ['13 févr. 2020', '2020-02-13'],
    ['29 maart 2014', '2014-03-29'],
    ['1 mrt 2014', '2014-03-01'],
    ['1 stycznia 2021', '2021-01-01'],
    ['15 października 2021', '2021-10-15'],
    ['3 lipca 2020', '2020-07-03'],
    ['12 de marzo de 2023', '2023-03-12'],
    ['3 febbraio 2022', '2022-02-03'],
    ['August 3 , 2014', '2014-08-03'],
    ['Jan 1, 2022', '2022-01-01'],
    ['Sept. 30th, 2019', '2019-09-30'],
    ['5-Mar-2021', '2021-03-05'],
    ["Nov 27 '26", '2026-11-27'],
    ['Dec 3 ’25', '2025-12-03'],
  ])('reads written %s', (text, iso) => {
    expect(parseDate(text)).toBe(iso);
  });

  it('applies the given order only to ambiguous slash dates', () => {
    expect(parseDate('03/04/2023', { order: 'MDY' })).toBe('2023-03-04');
    expect(parseDate('03/04/2023', { order: 'DMY' })).toBe('2023-04-03');
    expect(parseDate('03/20/2023', { order: 'DMY' })).toBe('2023-03-20');
    expect(parseDate('20/03/2023', { order: 'MDY' })).toBe('2023-03-20');
    expect(parseDate('03.04.2023', { order: 'MDY' })).toBe('2023-04-03');
  });

  it.each([['31.02.2020'], ['2020-13-01'], ['00.01.2020'], ['not a date'], ['12345'], ['05.03.2013 and 06.03.2013'], ['Nov 27 26']])('rejects %j', (text) => {
    expect(parseDate(text)).toBeUndefined();
  });
});

describe('findDates', () => {
  it('finds several dates and flags assumed day/month order', () => {
    const dates = findDates('Order Date: 15-10-2015 Invoice Date: 04/05/2015');
    expect(dates.map((date) => [date.iso, date.orderAssumed])).toEqual([
      ['2015-10-15', false],
      ['2015-05-04', true],
    ]);
  });

  it('returns offsets into the original text, accents included', () => {
    const text = 'Data wystawienia: 1 października 2021 r.';
    const [date] = findDates(text);
    expect(date && text.slice(date.index, date.index + date.length)).toBe('1 października 2021');
  });

  it('reads no date from digits glued to letters: a product code ("HC03-7 - 15"), not the 3rd of July 2015', () => {
    expect(findDates('HC03-7 - 15')).toEqual([]);
    expect(findDates('KE23-33-53 - 12/120')).toEqual([]);
    expect(findDates('Date:12-01-19 21:13').map((date) => date.iso)).toEqual(['2019-01-12']);
  });

  it('does not read reference numbers as dates', () => {
    expect(findDates('F 1234K20/1234/12 and 774-00-01-454')).toEqual([]);
  });
});

describe('parseDateTime', () => {
  it('keeps ISO datetimes and composes date plus time', () => {
    expect(parseDateTime('2020-01-01T10:00:00Z')).toBe('2020-01-01T10:00:00Z');
    expect(parseDateTime('05.03.2018 14:30')).toBe('2018-03-05T14:30:00');
    expect(parseDateTime('Jan 1, 2022 2:05 pm')).toBe('2022-01-01T14:05:00');
    expect(parseDateTime('05.03.2018')).toBe('2018-03-05');
    expect(parseDateTime('05.03.2018 25:00')).toBeUndefined();
  });
});

describe('inferNumericDateOrder', () => {
  it('follows an unambiguous date elsewhere in the document', () => {
    expect(inferNumericDateOrder({ texts: ['Date 04/05/2023', 'Due 04/19/2023'] })).toBe('MDY');
    expect(inferNumericDateOrder({ texts: ['Date 04/05/2023', 'Due 19/04/2023'], currency: 'USD', language: 'en' })).toBe('DMY');
  });

  it('falls back to month-first for US dollars in English, day-first otherwise', () => {
    expect(inferNumericDateOrder({ texts: ['04/05/2023'], currency: 'USD', language: 'en' })).toBe('MDY');
    expect(inferNumericDateOrder({ texts: ['04/05/2023'], currency: 'GBP', language: 'en' })).toBe('DMY');
    expect(inferNumericDateOrder({ texts: ['04/05/2023'], currency: 'USD', language: 'es' })).toBe('DMY');
  });

  it('follows the country the page names before the currency: US dollars are paid in day-first countries too', () => {
    expect(inferNumericDateOrder({ texts: ['04/05/2023'], currency: 'USD', language: 'en', country: 'SG' })).toBe('DMY');
    expect(inferNumericDateOrder({ texts: ['04/05/2023'], language: 'en', country: 'US' })).toBe('MDY');
    expect(inferNumericDateOrder({ texts: ['04/05/2023'], language: 'en', country: 'PH' })).toBe('MDY');
    expect(inferNumericDateOrder({ texts: ['04/05/2023'], currency: 'USD', language: 'en', country: 'CA' })).toBe('MDY');
    expect(inferNumericDateOrder({ texts: ['04/05/2023'], currency: 'CAD', language: 'en', country: 'CA' })).toBe('DMY');
    expect(inferNumericDateOrder({ texts: ['04/05/2023', '19/04/2023'], language: 'en', country: 'US' })).toBe('DMY');
  });

  it('ignores dotted dates, which are always day-first', () => {
    expect(inferNumericDateOrder({ texts: ['13.04.2023', '04/05/2023'], currency: 'USD', language: 'en' })).toBe('MDY');
  });
});

describe('findRepairedDates', () => {
  it.each([
    ['12-02-2618', '2018-02-12'],
    ['Date: 92/02/2018', '2018-02-02'],
    ['31/19/2020', '2020-10-31'],
  ])('repairs %s, impossible as read, by one commonly confused digit', (text, iso) => {
    expect(findRepairedDates(text).map((date) => date.iso)).toEqual([iso]);
  });

  it('reads a zero-padded date whose first separator OCR read as a gap with the other separator', () => {
    expect(findRepairedDates('568017 05 02-18').map((date) => date.iso)).toEqual(['2018-02-05']);
    expect(findRepairedDates('17 03/2018 14:22').map((date) => date.iso)).toEqual(['2018-03-17']);
    // Not inside a longer number or a row of figures, nor where the parts make no date.
    expect(findRepairedDates('1.05 02-18')).toEqual([]);
    expect(findRepairedDates('45 02-18')).toEqual([]);
  });

  it('reads a zero-padded date whose one slash OCR read as a 7 or a 1', () => {
    expect(findRepairedDates('DocNo CS0001 Date: 20/0472018').map((date) => date.iso)).toEqual(['2018-04-20']);
    expect(findRepairedDates('Date 03/1112019 10:22').map((date) => date.iso)).toEqual(['2019-11-03']);
    expect(findRepairedDates('20704/2018').map((date) => date.iso)).toEqual(['2018-04-20']);
    // Not a part number, a longer run of digits, a date that cannot exist, or a year outside 1900-2099.
    expect(findRepairedDates('SKU 12/0472018-5')).toEqual([]);
    expect(findRepairedDates('120/0472018')).toEqual([]);
    expect(findRepairedDates('45/0472018')).toEqual([]);
    expect(findRepairedDates('20/0475018')).toEqual([]);
  });

  it('repairs nothing that exists as read', () => {
    expect(findRepairedDates('12-02-2018')).toEqual([]);
  });

  it('leaves a date out when several repairs exist and nothing on the page tells them apart', () => {
    // "00/03/2019": 06, 08 and 09 March all exist with one 0 replaced.
    expect(findRepairedDates('00/03/2019', { yearsOnPage: [2019] })).toEqual([]);
  });

  it('takes the repair whose year another date on the page prints', () => {
    // "29/02/06" does not exist (2006 is no leap year); 29/02/2000, 29/02/1996, 20/02/2006 ... do.
    expect(findRepairedDates('29/02/06')).toEqual([]);
    expect(findRepairedDates('29/02/06', { yearsOnPage: [2000] }).map((date) => date.iso)).toEqual(['2000-02-29']);
  });
});
