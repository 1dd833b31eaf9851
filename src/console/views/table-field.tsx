import type { ExtractedField } from '../api-types.ts';
import { confidenceBandOf, confidenceText } from '../confidence.ts';
import { valueText } from '../field-value-text.ts';
import { selectionKeyOf, type FieldSelection } from './field-selection.ts';

/** The line-item columns in the order an invoice prints them; a configured table's own columns follow. */
const lineItemColumnOrder = ['product_code', 'description', 'date', 'quantity', 'unit', 'unit_price', 'tax_rate', 'amount'];

interface TableFieldProps {
  field: ExtractedField;
  selectedKey: string | undefined;
  onSelect(selection: FieldSelection): void;
}

/**
 * A `table` field (an invoice's `line_items`) as a table of its rows, a column for each column any row
 * has. A row (its number or its confidence) or a cell selects that part, and its box is drawn on the
 * page; rows and cells are reached by Tab and selected by Enter, as the fields are.
 */
export function TableField({ field, selectedKey, onSelect }: TableFieldProps) {
  const rows = Array.isArray(field.value) ? (field.value as Record<string, unknown>[]) : [];
  const columns = columnsOf(rows);
  const numeric = new Set(columns.filter((column) => rows.every((row) => row[column] === undefined || typeof row[column] === 'number')));
  const headingId = `table-field-${field.id}`;

  return (
    <section class="table-field" aria-labelledby={headingId} data-field-id={field.id}>
      <h2 id={headingId}>{field.name}</h2>
      {/* Outside the table: a caption is as wide as its table, and this one scrolls sideways in a narrow column. */}
      <p class="hint" id={`${headingId}-hint`}>
        Select a row (its number) or a cell (click, or Tab to it and press Enter) to see it on the page.
      </p>
      <div class="table-scroll">
        <table aria-describedby={`${headingId}-hint`}>
          <caption>{rows.length === 1 ? '1 row' : `${rows.length} rows`}</caption>
          <thead>
            <tr>
              <th scope="col">Row</th>
              {columns.map((column) => (
                <th scope="col" key={column} class={numeric.has(column) ? 'number' : undefined}>
                  {breakableName(column)}
                </th>
              ))}
              <th scope="col">Confidence</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => {
              const rowSelection = { fieldId: field.id, row: index };
              const rowKey = selectionKeyOf(rowSelection);
              const confidence = field.metadata?.rows?.[index]?.confidence;
              return (
                <tr key={index} data-selection={rowKey} tabIndex={0} class={rowKey === selectedKey ? 'selected' : ''} aria-selected={rowKey === selectedKey} {...selectable(rowSelection, onSelect)}>
                  <th scope="row">{index + 1}</th>
                  {columns.map((column) => {
                    if (row[column] === undefined) return <td key={column} />;
                    const cellSelection = { ...rowSelection, column };
                    const cellKey = selectionKeyOf(cellSelection);
                    return (
                      <td
                        key={column}
                        data-selection={cellKey}
                        data-column={column}
                        tabIndex={0}
                        class={`${numeric.has(column) ? 'number' : ''}${cellKey === selectedKey ? ' selected' : ''}`}
                        aria-selected={cellKey === selectedKey}
                        {...selectable(cellSelection, onSelect)}
                      >
                        {valueText(row[column])}
                      </td>
                    );
                  })}
                  <td class="row-confidence">
                    <span class={`confidence-swatch confidence-${confidenceBandOf(confidence)}`} aria-hidden="true" /> {confidenceText(confidence)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Click, Enter or Space selects; the innermost element (a cell inside its row) wins. */
function selectable(selection: FieldSelection, onSelect: (selection: FieldSelection) => void) {
  return {
    onClick: (event: MouseEvent) => {
      event.stopPropagation();
      onSelect(selection);
    },
    onKeyDown: (event: KeyboardEvent) => {
      if (event.key !== 'Enter' && event.key !== ' ') return;
      event.preventDefault();
      event.stopPropagation();
      onSelect(selection);
    },
  };
}

function columnsOf(rows: readonly Record<string, unknown>[]): string[] {
  const present = new Set(rows.flatMap((row) => Object.keys(row)));
  const known = lineItemColumnOrder.filter((column) => present.has(column));
  return [...known, ...[...present].filter((column) => !lineItemColumnOrder.includes(column))];
}

/** `unit_price` may break after its underscore, so that a narrow column fits its table without scrolling. */
function breakableName(column: string) {
  return column.split('_').map((part, index, parts) => (index < parts.length - 1 ? [part, '_', <wbr key={index} />] : part));
}
