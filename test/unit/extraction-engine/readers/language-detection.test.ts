import { describe, expect, it } from 'vitest';
import { detectLanguage } from '../../../../src/extraction-engine/readers/language-detection.ts';

describe('detectLanguage', () => {
  it.each([
    ['en', 'Invoice number 42. Please pay the total amount due by the date shown on this invoice. Thank you for your order.'],
    ['de', 'Rechnung Nr. 42. Bitte überweisen Sie den Gesamtbetrag bis zum Datum auf dieser Rechnung. Vielen Dank für Ihre Bestellung.'],
    ['fr', 'Facture n° 42. Merci de régler le montant total TTC avant la date d’échéance indiquée sur la facture.'],
    ['nl', 'Factuur nummer 42. Gelieve het totaal bedrag incl. btw voor de vervaldatum te betalen. Bedankt voor uw bestelling.'],
    ['pl', 'Faktura nr 42. Sprzedawca i nabywca. Prosimy o zapłatę kwoty brutto do terminu płatności podanego na fakturze.'],
  ])('recognises %s', (language, text) => {
    expect(detectLanguage(text)).toBe(language);
  });

  it('does not guess from a couple of words', () => {
    expect(detectLanguage('Total 42')).toBeUndefined();
  });
});
