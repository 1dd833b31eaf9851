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

function endsWithMoney(row: LayoutRow, hasGeometry: boolean): boolean {
  const last = row.segments[row.segments.length - 1];
  if (!last || row.segments.length < 2) return false;
  // The line amount sits in the right part of the table.
  if (hasGeometry && last.box.x + last.box.width < 0.55) return false;
  const text = row.segments.map((segment) => segment.text).join('   ');
  if (findDates(text).length > 0 && !/\d[.,]\d{2}(?!\d)\s*\S*$/.test(text)) return false;
  // Negative line amounts are allowances (discounts), not items.
  const amounts = findAmounts(last.text).filter((amount) => !amount.isPercentage && amount.value >= 0 && (amount.decimals === 2 || amount.currency));
  return amounts.length > 0 && /\p{L}/u.test(text);
}

/**
 * The number of item rows, or undefined when no item table is recognisable. Rows that start with a
 * label ("Bruttopreis :", a repeated header, a discount) are not items; the first totals row after
 * the items ends the table (not "Tax: 0.2%" inside an item), which may continue on later pages.
 */
export function lineItemCandidate(layout: DocumentLayout, fieldName: string, labels: LabelMatch[], isTotalsLabel: (label: LabelMatch) => boolean): FieldCandidate | undefined {
  const rowKey = (label: LabelMatch): string => `${label.segment.pageNumber}:${label.segment.rowIndex}`;
  const rowStartLabels = labels.filter((label) => label.atSegmentStart && label.segment.id === firstSegmentId(layout, label.segment.pageNumber, label.segment.rowIndex));
  const labelledRows = new Set(rowStartLabels.map(rowKey));
  const totalsRows = new Set(labels.filter(isTotalsLabel).map(rowKey));
  let count = 0;
  let firstHeader: LayoutRow | undefined;
  let finished = false;
  for (const page of layout.pages) {
    if (finished) break;
    const headerIndex = page.rows.findIndex(isHeaderRow);
    if (headerIndex < 0 && !firstHeader) continue;
    if (headerIndex >= 0) firstHeader ??= page.rows[headerIndex];
    const countBeforePage = count;
    for (let rowIndex = Math.max(0, headerIndex + 1); rowIndex < page.rows.length; rowIndex += 1) {
      const row = page.rows[rowIndex];
      const key = `${page.pageNumber}:${rowIndex}`;
      if (!row) continue;
      // Under a header repeated on a later page, its second line ("MwSt.") is not the totals yet.
      const itemsAbove = headerIndex >= 0 ? count > countBeforePage : count > 0;
      if (itemsAbove && totalsRows.has(key) && !onlyRates(row)) {
        // A section's subtotal ("--- Food ---" ... "Subtotal") when more items of the table follow it
        // before the next totals row; otherwise the table ends here.
        if (isSubtotal(row) && itemsFollowBeforeTotals(page.rows, rowIndex, page.pageNumber, totalsRows, labelledRows, layout.hasGeometry)) continue;
        finished = true;
        break;
      }
      if (labelledRows.has(key)) continue;
      if (endsWithMoney(row, layout.hasGeometry)) count += 1;
    }
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

const SUBTOTAL_START = /^(?:sub-?\s?total|zwischensumme|sous-?\s?total|subtotaal|subtotale|podsuma)\b/;

/** A row that starts with a subtotal word: it can close a section of the table, not the table. */
function isSubtotal(row: LayoutRow): boolean {
  return SUBTOTAL_START.test(normalizeForMatching(row.segments.map((segment) => segment.text).join(' ')).trim());
}

/**
 * True when, after the totals row at `rowIndex`, item rows come before the next totals row. Items there
 * must look like table rows (description, quantity or price, amount: three columns or more), so an
 * "Amount paid" line between a total and the amount due does not count.
 */
function itemsFollowBeforeTotals(rows: LayoutRow[], rowIndex: number, pageNumber: number, totalsRows: Set<string>, labelledRows: Set<string>, hasGeometry: boolean): boolean {
  for (let next = rowIndex + 1; next < rows.length; next += 1) {
    const key = `${pageNumber}:${next}`;
    const row = rows[next];
    if (!row) continue;
    if (totalsRows.has(key)) return false;
    if (!labelledRows.has(key) && row.segments.length >= 3 && endsWithMoney(row, hasGeometry)) return true;
  }
  return false;
}

/** A row whose only numbers are percentages: a tax rate inside an item, not a totals line. */
function onlyRates(row: LayoutRow): boolean {
  const numbers = row.segments.flatMap((segment) => findAmounts(segment.text));
  return numbers.length > 0 && numbers.every((amount) => amount.isPercentage);
}

function firstSegmentId(layout: DocumentLayout, pageNumber: number, rowIndex: number): number | undefined {
  return layout.pages.find((page) => page.pageNumber === pageNumber)?.rows[rowIndex]?.segments[0]?.id;
}
