// Table fields as field results: the rows read by the row builder (under a header, else the item
// lines above the totals), and the line item count as the number of rows of the item table (the field
// with role line-items, else the first table).

import type { DocumentLayout } from './document-layout.ts';
import type { FieldResult } from './field-result.ts';
import type { FieldSpecification } from './field-specification.ts';
import { readTable, type TableReadingOptions } from './table-rows.ts';
import { readTillRows } from './till-rows.ts';

export function tableFieldResults(layout: DocumentLayout, tableFields: FieldSpecification[], options: TableReadingOptions, countFieldName: string | undefined): FieldResult[] {
  const results: FieldResult[] = [];
  let counted: FieldResult | undefined;
  for (const field of tableFields) {
    // Without a header naming the columns: the item lines above the totals, as a till prints them.
    const underHeader = field.columns ? readTable(layout, field.columns, options) : undefined;
    const table = underHeader ?? (field.columns ? readTillRows(layout, field.columns, options) : undefined);
    if (!table) continue;
    const result: FieldResult = {
      name: field.name,
      value: undefined,
      confidence: table.confidence,
      pageNumber: table.pageNumber,
      ...(table.placement ? { placement: table.placement } : {}),
      evidence: underHeader ? 'rows of the table under its header' : 'item lines above the totals',
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
