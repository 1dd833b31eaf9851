// CSV and similar delimited exports: RFC 4180 quoting (quoted fields may hold delimiters, doubled
// quotes and line breaks); the delimiter is whichever of , ; tab | splits the first rows most evenly.

const candidateDelimiters = [',', ';', '\t', '|'] as const;

export function detectDelimiter(text: string): string {
  const rows = text.split(/\r?\n/u).filter((row) => row.trim() !== '').slice(0, 20);
  let best: { delimiter: string; score: number } = { delimiter: ',', score: 0 };
  for (const delimiter of candidateDelimiters) {
    const counts = rows.map((row) => row.split(delimiter).length - 1);
    const first = counts[0] ?? 0;
    if (first === 0) continue;
    const score = counts.filter((count) => count === first).length * first;
    if (score > best.score) best = { delimiter, score };
  }
  return best.delimiter;
}

/** Parses rows of fields; stops after `maxCells` fields in total. */
export function parseDelimitedRows(text: string, delimiter: string, maxCells: number): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let inQuotes = false;
  let cells = 0;
  const endField = () => {
    row.push(field);
    field = '';
    cells += 1;
  };
  for (let index = 0; index < text.length && cells < maxCells; index += 1) {
    const character = text[index]!;
    if (inQuotes) {
      if (character === '"' && text[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (character === '"') inQuotes = false;
      else field += character;
    } else if (character === '"' && field === '') inQuotes = true;
    else if (character === delimiter) endField();
    else if (character === '\n' || character === '\r') {
      if (character === '\r' && text[index + 1] === '\n') index += 1;
      endField();
      rows.push(row);
      row = [];
    } else field += character;
  }
  if (field !== '' || row.length > 0) {
    endField();
    rows.push(row);
  }
  return rows;
}
