// Counting the rows of the item table: a header row with several column words, then rows that end
// in a money amount, until the totals. Description lines without an amount continue the item above.

import { findAmounts } from '../values/amount.ts';
import { findDates } from '../values/date.ts';
import { normalizeForMatching } from '../values/text-normalization.ts';
import type { DocumentLayout, LayoutRow } from './document-layout.ts';
import type { FieldCandidate } from './field-candidate.ts';
import type { LabelMatch } from './label-anchors.ts';

const COLUMN_WORDS = new Set([
  'description', 'item', 'items', 'qty', 'quantity', 'price', 'rate', 'amount', 'unit', 'total', 'product', 'hours', 'tax',
  'menge', 'preis', 'betrag', 'bezeichnung', 'beschreibung', 'artikel', 'pos', 'pos.', 'einzelpreis', 'gesamtpreis', 'einheit', 'anzahl', 'nettopreis', 'zeilenbetrag', 'gesamt',
  'designation', 'quantite', 'prix', 'montant', 'qte', 'libelle', 'nombre', 'p.u.',
  'omschrijving', 'aantal', 'prijs', 'bedrag', 'artikelnummer',
  'nazwa', 'ilosc', 'cena', 'wartosc', 'lp', 'j.m.', 'jm',
  'descripcion', 'cantidad', 'precio', 'importe', 'descrizione', 'quantita', 'prezzo', 'importo',
]);

function isHeaderRow(row: LayoutRow): boolean {
  const words = normalizeForMatching(row.segments.map((segment) => segment.text).join(' '))
    .split(/[\s/()]+/)
    .map((word) => word.replace(/[:.]$/, ''));
  const hits = new Set(words.filter((word) => COLUMN_WORDS.has(word) || COLUMN_WORDS.has(`${word}.`)));
  return hits.size >= 3 && !row.segments.some((segment) => /\d{2,}[.,]\d{2}/.test(segment.text));
}

function endsWithMoney(row: LayoutRow): boolean {
  const last = row.segments[row.segments.length - 1];
  if (!last) return false;
  const text = row.segments.map((segment) => segment.text).join('   ');
  if (findDates(text).length > 0 && !/\d[.,]\d{2}(?!\d)\s*\S*$/.test(text)) return false;
  const amounts = findAmounts(last.text).filter((amount) => !amount.isPercentage && (amount.decimals === 2 || amount.currency));
  return amounts.length > 0 && /\p{L}/u.test(text);
}

/** The number of item rows, or undefined when no item table is recognisable. */
export function lineItemCandidate(layout: DocumentLayout, fieldName: string, totalsLabels: LabelMatch[]): FieldCandidate | undefined {
  const totalsRows = new Set(totalsLabels.map((label) => `${label.segment.pageNumber}:${label.segment.rowIndex}`));
  let count = 0;
  let headerFound = false;
  let firstHeader: LayoutRow | undefined;
  for (const page of layout.pages) {
    const headerIndex = page.rows.findIndex(isHeaderRow);
    if (headerIndex < 0) {
      if (headerFound) break;
      continue;
    }
    headerFound = true;
    firstHeader ??= page.rows[headerIndex];
    let finished = false;
    for (let rowIndex = headerIndex + 1; rowIndex < page.rows.length; rowIndex += 1) {
      const row = page.rows[rowIndex];
      if (!row) break;
      if (totalsRows.has(`${page.pageNumber}:${rowIndex}`)) {
        finished = true;
        break;
      }
      if (endsWithMoney(row)) count += 1;
    }
    if (finished) break;
  }
  if (!firstHeader || count === 0) return undefined;
  const anchor = firstHeader.segments[0];
  if (!anchor) return undefined;
  return {
    fieldName,
    value: count,
    score: 0.45,
    pageNumber: firstHeader.pageNumber,
    box: anchor.box,
    segmentId: anchor.id,
    evidence: 'rows of the item table',
  };
}
