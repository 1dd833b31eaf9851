// Plain-text tables for list output: a header row, then one row per item, columns padded to their
// widest cell. Long cells are cut with an ellipsis so one verbose value cannot push the rest off the
// screen; `--json` is there for the whole value.

export interface TableColumn<Row> {
  header: string;
  value(row: Row): unknown;
  /** Right-aligned (numbers). */
  alignRight?: boolean;
}

export interface TableOptions {
  /** Longest cell, in characters, before it is cut (default 60). */
  maxCellWidth?: number;
  /** Applied to each padded header cell (bold on a terminal). */
  styleHeader?: (text: string) => string;
}

const columnGap = '  ';

/** A cell's text: strings as they are, nothing for null/undefined, everything else as compact JSON. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function fitted(text: string, maxWidth: number): string {
  // One line per row: a newline inside a value would break the columns.
  const oneLine = text.replace(/\s*[\r\n]+\s*/g, ' ');
  const characters = [...oneLine];
  return characters.length <= maxWidth ? oneLine : `${characters.slice(0, maxWidth - 1).join('')}…`;
}

export function formatTable<Row>(columns: TableColumn<Row>[], rows: Row[], options: TableOptions = {}): string {
  const maxWidth = Math.max(options.maxCellWidth ?? 60, 2);
  const body = rows.map((row) => columns.map((column) => fitted(cellText(column.value(row)), maxWidth)));
  const widths = columns.map((column, index) => Math.max([...column.header].length, ...body.map((cells) => [...cells[index]!].length)));
  const pad = (text: string, index: number) => {
    const padding = ' '.repeat(widths[index]! - [...text].length);
    return columns[index]!.alignRight ? padding + text : text + padding;
  };
  const styleHeader = options.styleHeader ?? ((text: string) => text);
  const lines = [columns.map((column, index) => styleHeader(pad(column.header, index))).join(columnGap), ...body.map((cells) => cells.map(pad).join(columnGap))];
  // Trailing spaces of the last column are noise in a terminal and in a diff.
  return lines.map((line) => line.trimEnd()).join('\n');
}

/** What a list holds, in the singular and the plural ("delivery", "deliveries"). */
export interface ItemNoun {
  one: string;
  many: string;
}

/** A noun whose plural is the singular and an s. */
export const regularNoun = (one: string): ItemNoun => ({ one, many: `${one}s` });

export function counted(count: number, noun: ItemNoun): string {
  return `${count} ${count === 1 ? noun.one : noun.many}`;
}

export interface ListPage {
  page: number;
  totalItems: number;
  totalPages: number;
}

/** The line under a list: how many there are and where in the pages this one is; an empty list says so. */
export function listSummary(pageInfo: ListPage, shownCount: number, noun: ItemNoun): string {
  const { page, totalItems, totalPages } = pageInfo;
  if (totalItems === 0) return `No ${noun.many}.`;
  const pages = totalPages === 1 ? 'page 0' : `pages 0 to ${totalPages - 1}`;
  if (shownCount === 0) return `No ${noun.many} on page ${page}: ${counted(totalItems, noun)} on ${pages}.`;
  if (totalPages === 1) return `${counted(totalItems, noun)}.`;
  const more = page + 1 < totalPages ? `; --page ${page + 1} for the next` : '';
  return `${counted(totalItems, noun)}; page ${page} of ${pages}${more}.`;
}
