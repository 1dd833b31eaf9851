import { describe, expect, it } from 'vitest';
import { extractDocument } from '../../../../src/extraction-engine/extract-document.ts';
import { defaultExtractionConfiguration } from '../../../../src/extraction-engine/configuration/parse-extraction-configuration.ts';
import { CURRENCY_OF_COUNTRY, findCountryMentions, namesPostalTown, weighCountries } from '../../../../src/extraction-engine/values/country.ts';
import { placedDocument, type Row } from './read-document-builder.ts';

function strongestCountry(text: string): string | undefined {
  return [...weighCountries(findCountryMentions(text)).entries()].sort((left, right) => right[1] - left[1])[0]?.[0];
}

describe('findCountryMentions', () => {
  it.each([
    ['KEDAI RUNCIT MAJU SDN BHD', 'MY'],
    ['Maju Trading S/B (123456-K)', 'MY'],
    ['SST Reg No: W10-1808-31000123', 'MY'],
    ['Lucky Noodle House Pte. Ltd.', 'SG'],
    ['Harbour Cafe Pty Ltd', 'AU'],
    ['ABN 51 824 753 556', 'AU'],
    ['GSTIN: 29ABCDE1234F1Z5', 'IN'],
    ['Sharma Textiles Pvt. Ltd.', 'IN'],
    ['Tel: +852 2345 6789', 'HK'],
    ['Tel +65 6123 4567', 'SG'],
    ['Kuala Lumpur', 'MY'],
    ['8001 Zürich', 'CH'],
    ['UID CHE-123.456.789 MWST', 'CH'],
    ['Kowalski Sp. z o.o.', 'PL'],
    ['Oslo, Norge', 'NO'],
    ['PT Sinar Makmur Tbk', 'ID'],
    // "SDN BHD" as OCR misreads it, closing a name line.
    ['KEDAI BESI MAJU (KLANG) SUN BHO', 'MY'],
    ['Restoran Sedap Shn Bhd', 'MY'],
    ['SRI MURNI TRADING 5DN 8HD', 'MY'],
    // A Malaysian company number with spaces in its parentheses, or after its label without them.
    ['( 002022599 - U )', 'MY'],
    ['REG. NO:00148397-H', 'MY'],
  ])('takes %s for %s', (text, country) => {
    expect(strongestCountry(text)).toBe(country);
  });

  it('takes no phone prefix from a number too short to be dialled abroad: "(002022599 - U)" is no Egyptian number', () => {
    expect(findCountryMentions('(002022599 - U)').some((mention) => mention.evidence === 'phone prefix')).toBe(false);
    expect(findCountryMentions('Tel: 0020 2 2345 6789').find((mention) => mention.evidence === 'phone prefix')?.countries).toEqual(['EG']);
  });

  it('takes no phone prefix from a barcode or a tax number that starts with "00": a number dialled abroad is written in groups', () => {
    // A UPC with its leading zeros on a US till's item line ("00" + 7 read as Russia, "00370" as Lithuania).
    expect(findCountryMentions('GV MILK GAL  007874235186 F  3.48 N')).toEqual([]);
    expect(findCountryMentions('PAPER TOWEL  003700083322  12.97 X')).toEqual([]);
    expect(findCountryMentions('GST ID: 001287233536').some((mention) => mention.evidence === 'phone prefix')).toBe(false);
    expect(findCountryMentions('Tel 0044-20-7946-0958').find((mention) => mention.evidence === 'phone prefix')?.countries).toEqual(['GB']);
  });

  it('splits a legal form several countries use between them', () => {
    const weights = weighCountries(findCountryMentions('Beispiel GmbH'));
    expect(weights.get('DE')).toBeCloseTo(weights.get('CH') ?? 0);
    expect(strongestCountry('Beispiel GmbH, 8001 Zürich')).toBe('CH');
  });

  it('takes no country from words that only look like one', () => {
    expect(findCountryMentions('Please usa the coupon, bhd is not a form, Gstaad')).toEqual([]);
    // A misread form counts only where it ends the line, as a name's legal form does.
    expect(findCountryMentions('SUN BHO ROAD 12')).toEqual([]);
  });

  it('weighs a misread "SDN BHD" less than the form read as printed, and never both for one form', () => {
    expect(weighCountries(findCountryMentions('MAJU TRADING SUN BHO')).get('MY')).toBe(1);
    expect(weighCountries(findCountryMentions('MAJU TRADING SDN BHD')).get('MY')).toBe(1.5);
    expect(weighCountries(findCountryMentions('MAJU TRADING SHN BHD')).get('MY')).toBe(1.5);
  });

  it.each([
    ['512 Main St, Austin TX 78701', 'US'],
    ['Sacramento, CA 95815-1234', 'US'],
    ['Toronto ON M5V 2T6', 'CA'],
    ['Town Hall, Sydney NSW 2000', 'AU'],
    ['Perth WA 6000', 'AU'],
    ['1 Oxford Street, London W1D 1AN', 'GB'],
    ['Manchester M1 1AE', 'GB'],
  ])('takes the postal address %s for %s', (text, country) => {
    expect(strongestCountry(text)).toBe(country);
    expect(findCountryMentions(text).some((mention) => mention.evidence === 'postal address')).toBe(true);
    expect(namesPostalTown(text)).toBe(true);
  });

  it('takes no postal address from codes that only look like one', () => {
    for (const text of [
      // A German VAT id, an Indian PIN, a Malaysian postcode after its town, a docket number, a till line.
      'UID Nr.: DE812706034',
      'Bengaluru IN 560001',
      '43300 SERI KEMBANGAN, SELANGOR',
      'Order #CA 95815',
      'ca 95815',
      'TX 787011',
      'Invoice A12 3BC',
    ]) {
      expect(findCountryMentions(text).filter((mention) => mention.evidence === 'postal address')).toEqual([]);
      expect(namesPostalTown(text)).toBe(false);
    }
  });

  it('knows the currency of every country it can name', () => {
    const named = new Set(['MY', 'SG', 'AU', 'IN', 'HK', 'CH', 'PL', 'NO', 'ID', 'DE', 'AT', 'US', 'CA', 'JP', 'CN']);
    for (const country of named) expect(CURRENCY_OF_COUNTRY[country]).toMatch(/^[A-Z]{3}$/);
  });
});

describe('currency implied by the country where no sign is printed', () => {
  const till = (header: Row[]): Row[] => [
    ...header,
    [{ text: 'Nasi lemak', x: 0.1 }, { text: '6.50', x: 0.8 }],
    [{ text: 'Teh tarik', x: 0.1 }, { text: '2.20', x: 0.8 }],
    [{ text: 'TOTAL', x: 0.1 }, { text: '8.70', x: 0.8 }],
    [{ text: 'CASH', x: 0.1 }, { text: '10.00', x: 0.8 }],
    [{ text: 'Date: 05/03/2019 12:41', x: 0.1 }],
  ];

  function currencyOf(rows: Row[]) {
    const outcome = extractDocument(placedDocument([rows], { language: 'en', source: 'ocr' }), { configuration: defaultExtractionConfiguration, labels: { docType: 'receipt' } });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    return outcome.fields.find((field) => field.name === 'currency');
  }

  it('reads ringgit from a Malaysian legal form and state, at low confidence', () => {
    const currency = currencyOf(till([{ text: 'WARUNG SEDAP SDN BHD', x: 0.25 }, { text: 'Jalan Ampang, 50450 Kuala Lumpur', x: 0.2 }]));
    expect(currency?.value).toBe('MYR');
    expect(currency?.metadata.confidence).toBeLessThan(0.7);
  });

  it('reads ringgit from a name whose "SDN BHD" OCR misread, with no other evidence, at low confidence', () => {
    const currency = currencyOf(till([{ text: 'KEDAI BESI MAJU SUN BHO', x: 0.25 }, { text: '12, Lorong Tiga, 40170', x: 0.2 }]));
    expect(currency?.value).toBe('MYR');
    expect(currency?.metadata.confidence).toBeLessThan(0.7);
  });

  it('reads Singapore dollars from "Pte Ltd" and the country name', () => {
    expect(currencyOf(till([{ text: 'KOPI CORNER PTE LTD', x: 0.25 }, { text: '10 Bayfront Ave, Singapore 018956', x: 0.2 }]))?.value).toBe('SGD');
  });

  it('prefers a printed sign to the country', () => {
    expect(currencyOf(till([{ text: 'KOPI CORNER PTE LTD', x: 0.25 }, { text: 'Prices in US$', x: 0.2 }]))?.value).toBe('USD');
  });

  it('reads US dollars from a state and ZIP code, and reads the slash dates of the till month first', () => {
    const outcome = extractDocument(
      placedDocument(
        [
          [
            [{ text: 'BLUE MOON DINER', x: 0.25 }],
            [{ text: '512 Main St, Austin TX 78701', x: 0.2 }],
            [{ text: 'Pancakes', x: 0.1 }, { text: '17.00', x: 0.8 }],
            [{ text: 'Coffee', x: 0.1 }, { text: '3.50', x: 0.8 }],
            [{ text: 'Total', x: 0.1 }, { text: '20.50', x: 0.8 }],
            [{ text: 'Date: 11/05/2026 7:14 PM', x: 0.1 }],
          ],
        ],
        { language: 'en', source: 'ocr' },
      ),
      { configuration: defaultExtractionConfiguration, labels: { docType: 'receipt' } },
    );
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    expect(outcome.fields.find((field) => field.name === 'currency')?.value).toBe('USD');
    expect(outcome.fields.find((field) => field.name === 'issue_date')?.value).toBe('2026-11-05');
  });

  it('reads US dollars from the state and ZIP code of a till that prints its items with their barcodes', () => {
    const rows: Row[] = [
      { text: 'Walmart', x: 0.4 },
      { text: '2110 W WALNUT ST', x: 0.3 },
      { text: 'ROGERS AR 72756', x: 0.3 },
      [{ text: 'GV MILK GAL 007874235186 F', x: 0.05 }, { text: '3.48 N', x: 0.75 }],
      [{ text: 'PAPER TOWEL 003700083322', x: 0.05 }, { text: '12.97 X', x: 0.75 }],
      [{ text: 'SUBTOTAL', x: 0.05 }, { text: '16.45', x: 0.75 }],
      [{ text: 'TOTAL', x: 0.05 }, { text: '17.60', x: 0.75 }],
      { text: '11/07/26 14:22:05', x: 0.05 },
    ];
    const outcome = extractDocument(placedDocument([rows], { language: 'en', source: 'ocr' }), { configuration: defaultExtractionConfiguration, labels: { docType: 'receipt' } });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    expect(outcome.fields.find((field) => field.name === 'currency')?.value).toBe('USD');
    expect(outcome.fields.find((field) => field.name === 'issue_date')?.value).toBe('2026-11-07');
  });

  it('reports no currency when nothing on the page names a country or a sign', () => {
    expect(currencyOf(till([{ text: 'CORNER SHOP', x: 0.25 }]))?.value ?? null).toBeNull();
  });
});
