// Table fields as field results: the rows read by the row builder (under a header, else the item
// lines above the totals), and the line item count as the number of rows of the item table (the field
// with role line-items, else the first table).

import type { DocumentLayout } from './document-layout.ts';
import type { FieldResult } from './field-result.ts';
import type { FieldSpecification } from './field-specification.ts';
import { readTable, type TableReadingOptions } from './table-rows.ts';
import type { ExtractedTable } from './table-specification.ts';
import { readTillRows } from './till-rows.ts';

export function tableFieldResults(layout: DocumentLayout, tableFields: FieldSpecification[], options: TableReadingOptions, countFieldName: string | undefined): FieldResult[] {
  const results: FieldResult[] = [];
  let counted: FieldResult | undefined;
  for (const field of tableFields) {
    if (!field.columns) continue;
    const underHeader = readTable(layout, field.columns, options);
    // Without a header naming the columns: the item lines above the totals, as a till prints them. Not
    // read where every row under the header adds up and so do the rows to a printed sum: nothing could
    // speak more for another reading.
    const settled = underHeader?.arithmetic?.addsUpToSum === true && underHeader.arithmetic.rowsThatAddUp === underHeader.rows.length;
    const itemLines = settled ? undefined : readTillRows(layout, field.columns, options);
    const table = betterVouchedFor(underHeader, itemLines);
    if (!table) continue;
    const result: FieldResult = {
      name: field.name,
      value: undefined,
      confidence: table.confidence,
      pageNumber: table.pageNumber,
      ...(table.placement ? { placement: table.placement } : {}),
      evidence: table === underHeader ? 'rows of the table under its header' : 'item lines above the totals',
      table,
    };
    results.push(result);
    if (!counted || field.role === 'line-items') counted = result;
  }
  if (countFieldName && counted?.table) {
    results.push({
      name: countFieldName,
      value: counted.table.rows.length,
      ...(counted.confidence !== undefined ? { confidence: counted.confidence } : {}),
      ...(counted.pageNumber !== undefined ? { pageNumber: counted.pageNumber } : {}),
      ...(counted.placement ? { placement: counted.placement } : {}),
      evidence: `rows of ${counted.name}`,
    });
  }
  return results;
}

/**
 * The rows under a header, unless the page's arithmetic speaks more for the item lines above the totals:
 * more of their rows add up (quantity × price), or as many and only they add up to the printed sum. A
 * till slip prints a header ("Item Qty Price Amount") over items of two lines each (name, then quantity,
 * price and amount) that the header's column bands misplace, while the lines' own arithmetic holds.
 */
function betterVouchedFor(underHeader: ExtractedTable | undefined, itemLines: ExtractedTable | undefined): ExtractedTable | undefined {
  if (!underHeader || !itemLines) return underHeader ?? itemLines;
  const header = underHeader.arithmetic ?? { rowsThatAddUp: 0, addsUpToSum: false };
  const lines = itemLines.arithmetic ?? { rowsThatAddUp: 0, addsUpToSum: false };
  if (lines.rowsThatAddUp !== header.rowsThatAddUp) return lines.rowsThatAddUp > header.rowsThatAddUp ? itemLines : underHeader;
  return lines.addsUpToSum && !header.addsUpToSum ? itemLines : underHeader;
}
