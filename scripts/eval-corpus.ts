// Field accuracy of the extraction engine over the development corpus (../shared/corpus, or
// PAPERFLOW_CORPUS_DIR): per field and per source (text PDFs, OCR, plain text, ZUGFeRD with and
// without the embedded XML), the calibration of confidences, and the outcome of each bad/ file.
// Line items: row recall, row precision and cell accuracy per source against the hand labels of
// test/fixtures/line-items/ and, for ZUGFeRD, against the rows read from the embedded XML.
// Each text PDF is also rendered into an image-only "scan" to measure the OCR path (skip: --no-scans).
// Usage: npm run eval:corpus [-- --verbose] [-- --no-scans] [-- --only receipts/] [-- --read-cache DIR] [-- --page-budget-ms N|production] [-- --ocr-workers N] [-- --ensemble-split SETS] [-- --turn 90|180|270]
// --only keeps the files whose corpus path contains the text (repeatable); --read-cache keeps each
// document as read (keyed by its bytes' SHA-256 and the reader source's) in DIR, so iterating on the
// field extractor does not OCR the same pages again. --page-budget-ms sets the OCR time allowed per
// page (default 150 s, so a loaded machine does not turn slow pages into misses; `production` for
// readingLimits.pageTimeBudgetMs). --turn 90 (180, 270) turns every photo and image scan clockwise in its
// pixels before it is read, as a scan fed sideways or a photo whose EXIF orientation was stripped
// arrives: the corpus images are all upright, and the fields must not depend on it.

import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import {
  arithmeticStatistics,
  headReadAheadStatistics,
  headSecondLookStatistics,
  isValidIban,
  missedLineStatistics,
  normalizeIban,
  OcrPool,
  ocrLanguages,
  readDocument,
  secondLookStatistics,
  secondRecognitionStatistics,
  sniffMediaType,
  type OcrLanguage,
} from '../src/extraction-engine/diagnostics.ts';
import {
  defaultExtractionConfiguration,
  DocumentRejectedError,
  extractDocument,
  totalArithmeticCheck,
  type ExtractionOutcome,
  type ReadDocument,
} from '../src/extraction-engine/index.ts';
import { derivedScanOf } from './corpus-scans.ts';
import {
  CONFIDENT_ROW,
  lineItemLabelSchema,
  lineItemSummaryBySource,
  missingPredictionCounts,
  predictedLineItemsOf,
  rowPrecision,
  rowRecall,
  scoredColumns,
  scoreLineItems,
  scoreOutcomeLineItems,
  type LineItemResult,
  type LineItemRow,
} from './line-item-scoring.ts';

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const lineItemLabelDirectory = join(repositoryRoot, 'test/fixtures/line-items');
const corpusDirectory = process.env.PAPERFLOW_CORPUS_DIR ?? resolve(repositoryRoot, '../shared/corpus');
const verbose = process.argv.includes('--verbose');
/** The corpus has no scanned PDFs; by default every text PDF is also rendered into one and OCR'd. */
const withDerivedScans = !process.argv.includes('--no-scans');
const onlyPaths = process.argv.flatMap((argument, index) => (process.argv[index - 1] === '--only' ? [argument] : []));
/** --no-arithmetic-check reads without the field finder's check of each OCR page (the baseline of that check). */
const withArithmeticCheck = !process.argv.includes('--no-arithmetic-check');
const readCacheIndex = process.argv.indexOf('--read-cache');
const readCacheDirectory = readCacheIndex > 0 ? process.argv[readCacheIndex + 1] : undefined;
// The eval measures what the engine reads, not how busy the machine is: with the service's 30 s per page, a
// loaded box turns slow OCR pages into misses that differ from run to run. So the eval allows 150 s per page
// unless told otherwise (`--page-budget-ms production` for the service's own budget). The budget is part of
// the read cache's key, so every run without the option shares the same cached readings.
const evalPageTimeBudgetMs = 150_000;
const pageBudgetIndex = process.argv.indexOf('--page-budget-ms');
const pageBudgetArgument = pageBudgetIndex > 0 ? process.argv[pageBudgetIndex + 1] : undefined;
const pageTimeBudgetMs = pageBudgetArgument === undefined ? evalPageTimeBudgetMs : pageBudgetArgument === 'production' ? undefined : Number(pageBudgetArgument);
if (pageTimeBudgetMs !== undefined && !(Number.isInteger(pageTimeBudgetMs) && pageTimeBudgetMs > 0)) {
  console.error(`--page-budget-ms takes a whole number of milliseconds above 0, or "production"; got ${pageBudgetArgument}`);
  process.exit(2);
}
// --ocr-workers 1 reads each page whole on one worker (no split into bands), to compare with the default.
// --ensemble-split eng+deu+fra/eng+nld+pol reads a receipt on both workers at once, each with one set of
// models, merged word by word (OcrPool's ensembleSplit). Both options are part of the read cache's key
// when given, so their readings never pass for the default pool's.
const ensembleSplitIndex = process.argv.indexOf('--ensemble-split');
const ensembleSplit =
  ensembleSplitIndex > 0 ? (process.argv[ensembleSplitIndex + 1] ?? '').split('/').map((set) => set.split('+').filter((language): language is OcrLanguage => (ocrLanguages as readonly string[]).includes(language))) : undefined;
const ocrWorkersIndex = process.argv.indexOf('--ocr-workers');
const ocrWorkers = ocrWorkersIndex > 0 ? Number(process.argv[ocrWorkersIndex + 1]) : 2;
const turnIndex = process.argv.indexOf('--turn');
const turnArgument = turnIndex > 0 ? Number(process.argv[turnIndex + 1]) : 0;
if (![0, 90, 180, 270].includes(turnArgument)) {
  console.error(`--turn takes 90, 180 or 270 (degrees clockwise); got ${process.argv[turnIndex + 1]}`);
  process.exit(2);
}
/** The image turned clockwise by --turn in its pixels, in its own format; other documents as they are. */
async function asSent(bytes: Uint8Array, path: string): Promise<Uint8Array> {
  if (turnArgument === 0 || !/^\.(jpe?g|png|tiff?|webp)$/iu.test(extname(path))) return bytes;
  try {
    const image = sharp(bytes);
    const { format } = await image.metadata();
    return new Uint8Array(await image.rotate(turnArgument).toFormat(format === 'jpeg' || format === 'png' || format === 'webp' ? format : 'png').toBuffer());
  } catch {
    // A damaged image (bad/) goes to the reader as it is, to be rejected there.
    return bytes;
  }
}
/** Empty for the default pool, so the default pool's cached readings keep their keys. */
const poolOptionsKey = [ensembleSplit ? `ensembleSplit=${JSON.stringify(ensembleSplit)}` : '', ocrWorkersIndex > 0 ? `ocrWorkers=${ocrWorkers}` : ''].join('');

type ExpectedValue = string | number;

interface ExpectedFile {
  document: string;
  category?: string;
  expected_behaviour?: string;
  fields?: Record<string, ExpectedValue> & { visible?: Record<string, ExpectedValue>; embedded_xml?: Record<string, ExpectedValue> };
}

interface Comparison {
  source: string;
  file: string;
  field: string;
  expected: ExpectedValue;
  actual: ExpectedValue | boolean | null | undefined;
  correct: boolean;
  confidence?: number;
}

const TARGET_FIELDS = ['invoice_number', 'issue_date', 'total_amount', 'currency', 'seller_name'];
const comparedFieldNames = new Set([
  'doc_type', 'invoice_number', 'issue_date', 'due_date', 'delivery_date', 'currency', 'net_amount', 'tax_amount', 'total_amount', 'amount_due',
  'seller_name', 'seller_vat_id', 'buyer_name', 'buyer_vat_id', 'buyer_reference', 'order_reference', 'customer_number', 'iban', 'line_item_count',
]);

function sameValue(expected: ExpectedValue, actual: unknown): boolean {
  if (actual === null || actual === undefined) return false;
  if (typeof expected === 'number') return typeof actual === 'number' && Math.abs(actual - expected) <= 0.01 + 1e-9;
  const normalize = (value: string): string => value.toLowerCase().replace(/\s+/g, '');
  return normalize(String(actual)) === normalize(expected);
}

/**
 * Ground truth the engine must not match: an expected `iban` that fails ISO 13616 (a sample's
 * "US1234567890", a typo) is not an IBAN, and the engine deliberately reports none there. Such
 * expectations are listed apart rather than counted as misses.
 */
function isImpossibleExpectation(comparison: Comparison): boolean {
  return comparison.field === 'iban' && typeof comparison.expected === 'string' && !isValidIban(normalizeIban(comparison.expected));
}

function expectedDocType(value: ExpectedValue): string {
  return String(value).includes('receipt') ? 'receipt' : 'invoice';
}

async function findExpectedFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.expected.json'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function sourceOf(document: ReadDocument): string {
  if (document.mediaType.startsWith('image/')) return 'image (OCR)';
  if (document.mediaType === 'application/pdf') {
    const sources = new Set(document.pages.map((page) => page.source));
    return sources.has('text-layer') ? 'text PDF' : 'scanned PDF (OCR)';
  }
  return document.mediaType === 'text/plain' ? 'plain text' : document.mediaType;
}

function compare(source: string, file: string, outcome: ExtractionOutcome, expectedFields: Record<string, ExpectedValue>): Comparison[] {
  const comparisons: Comparison[] = [];
  for (const [field, expected] of Object.entries(expectedFields)) {
    if (!comparedFieldNames.has(field) || typeof expected === 'object') continue;
    if (field === 'doc_type') {
      const actual = outcome.status === 'COMPLETED' ? outcome.docType : null;
      comparisons.push({ source, file, field, expected: expectedDocType(expected), actual, correct: actual === expectedDocType(expected) });
      continue;
    }
    const extracted = outcome.status === 'COMPLETED' ? outcome.fields.find((candidate) => candidate.name === field) : undefined;
    if (outcome.status === 'COMPLETED' && !extracted) continue; // the routed type does not define this field
    // Table values (rows) are compared by the row evaluation, not here.
    const actual = Array.isArray(extracted?.value) ? undefined : extracted?.value;
    comparisons.push({
      source,
      file,
      field,
      expected,
      actual,
      correct: sameValue(expected, actual),
      ...(extracted?.metadata.confidence !== undefined ? { confidence: extracted.metadata.confidence } : {}),
    });
  }
  return comparisons;
}

function percentage(correct: number, total: number): string {
  return total === 0 ? '   -  ' : `${((100 * correct) / total).toFixed(1).padStart(5)}%`;
}

function printTable(title: string, header: string[], rows: string[][]): void {
  console.log(`\n${title}`);
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const format = (row: string[]): string => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ');
  console.log(format(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) console.log(format(row));
}

/**
 * The hand-labelled rows of a corpus document (test/fixtures/line-items/<path>.rows.json), or the rows
 * label beside the document (a set written by paperflow-admin feedback export), if it has them.
 */
async function handLabelledRows(relative: string): Promise<LineItemRow[] | undefined> {
  let text: string | undefined;
  for (const directory of [lineItemLabelDirectory, corpusDirectory]) {
    try {
      text = await readFile(join(directory, `${relative}.rows.json`), 'utf8');
      break;
    } catch {
      // not labelled there
    }
  }
  if (text === undefined) return undefined;
  const label = lineItemLabelSchema.parse(JSON.parse(text));
  if (label.document !== relative) throw new Error(`${relative}.rows.json labels ${label.document}`);
  return label.rows;
}

function printLineItemReport(results: readonly LineItemResult[], withoutTruth: readonly string[]): void {
  console.log('\nLine items (rows paired one to one; cells over paired rows whose truth prints the column)');
  if (results.length === 0) {
    console.log('no documents with line-item ground truth in this run');
  } else {
    const rate = (right: number, total: number): string => (total === 0 ? '-' : `${percentage(right, total)} ${right}/${total}`);
    const ratio = (value: number | undefined, right: number, total: number): string => (value === undefined ? '-' : rate(right, total));
    const summaries = lineItemSummaryBySource(results);
    const rows = summaries.map(({ source, documents, score }) => [
      source,
      String(documents),
      ratio(rowRecall(score), score.matchedRows, score.truthRows),
      ratio(rowPrecision(score), score.matchedRows, score.predictedRows),
      ...scoredColumns.map((column) => rate(score.cells[column].right, score.cells[column].total)),
    ]);
    printTable('Line items per source', ['source', 'documents', 'row recall', 'row precision', ...scoredColumns], rows);
    const confident = summaries.at(-1)?.score.confidentRows ?? { right: 0, total: 0 };
    console.log(`Row confidence >= ${CONFIDENT_ROW}: ${confident.total === 0 ? 'no such rows' : `${confident.right} of ${confident.total} paired with the right amount (${percentage(confident.right, confident.total).trim()})`}`);
    for (const { reason, readings } of missingPredictionCounts(results)) console.log(`${reason}: 0 rows predicted for ${readings} of ${results.length} scored readings`);
  }
  if (withoutTruth.length > 0) console.log(`no line_items from the embedded XML, so no truth rows, for ${withoutTruth.length} ZUGFeRD file(s): ${withoutTruth.join(', ')}`);
  if (verbose) {
    for (const result of results) {
      const { truthRows, predictedRows, matchedRows } = result.score;
      console.log(`  ${result.source.padEnd(40)} ${result.file.padEnd(52)} rows: ${truthRows} true, ${predictedRows} predicted, ${matchedRows} paired${result.missingPrediction ? ` (${result.missingPrediction})` : ''}`);
      for (const difference of result.differences ?? []) console.log(`      ${difference}`);
    }
  }
}

const readerVersions = new Map<string, Promise<string>>();

/** Relative imports of one module, resolved to absolute paths (only `.ts` files under src/extraction-engine). */
async function engineImportsOf(file: string): Promise<string[]> {
  const source = await readFile(file, 'utf8');
  const engineDirectory = join(repositoryRoot, 'src/extraction-engine');
  return [...source.matchAll(/from '(\.{1,2}\/[^']+\.ts)'/g)].map((match) => resolve(dirname(file), match[1]!)).filter((path) => path.startsWith(engineDirectory));
}

/**
 * A hash of the code a reading goes through: read-document.ts and the reader that the file's kind is read by, with
 * every engine module they import. A cached reading is reused only while that code is unchanged, so a change to the
 * PDF reader does not throw away the (slow, OCR) readings of photos, and the other way round where the code is apart.
 */
async function readerSourceHash(entry: string): Promise<string> {
  const seen = new Set<string>();
  const pending = [join(repositoryRoot, 'src/extraction-engine/read-document.ts'), join(repositoryRoot, 'src/extraction-engine/readers', entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    // read-document.ts imports every reader; follow only this file's reader from it, not the others'.
    const imports = await engineImportsOf(file);
    const otherReaders = new Set(Object.entries(readerModules).filter(([name]) => name !== entry).flatMap(([, modules]) => modules));
    pending.push(...(file.endsWith('/read-document.ts') ? imports.filter((path) => !otherReaders.has(basename(path))) : imports));
  }
  if (entry === 'structured-readers.ts') {
    // Text, XML and office files: every reader, as before (they are fast to read again).
    const readersDirectory = join(repositoryRoot, 'src/extraction-engine/readers');
    for (const name of await readdir(readersDirectory)) seen.add(join(readersDirectory, name));
  }
  const hash = createHash('sha256').update(entry);
  for (const file of [...seen].sort()) hash.update(file.slice(repositoryRoot.length)).update(await readFile(file));
  return hash.digest('hex').slice(0, 16);
}

/** The modules read-document.ts reads each kind of file with: a reader and the checks only it runs. */
const readerModules: Record<string, string[]> = {
  'pdf-reader.ts': ['pdf-reader.ts', 'e-invoice-xml.ts', 'embedded-invoice-check.ts'],
  'image-reader.ts': ['image-reader.ts'],
  'structured-readers.ts': ['structured-readers.ts'],
};

/** The reader module a document's bytes are read by, from the format read-document itself sniffs. */
async function readerEntryFor(bytes: Uint8Array): Promise<string> {
  const sniffed = await sniffMediaType(bytes);
  if (!sniffed.supported) return 'structured-readers.ts';
  if (sniffed.mediaType === 'application/pdf') return 'pdf-reader.ts';
  return sniffed.mediaType.startsWith('image/') ? 'image-reader.ts' : 'structured-readers.ts';
}

/** readDocument, through the --read-cache directory when one is given (rejections are not cached). */
async function readThroughCache(bytes: Uint8Array, givenOptions: Parameters<typeof readDocument>[1]): Promise<ReadDocument> {
  const checked = withArithmeticCheck ? { ...givenOptions, arithmeticCheck: totalArithmeticCheck({ configuration: defaultExtractionConfiguration }) } : givenOptions;
  const options = pageTimeBudgetMs ? { ...checked, pageTimeBudgetMs } : checked;
  if (!readCacheDirectory) return readDocument(bytes, options);
  const entry = await readerEntryFor(bytes);
  const readerVersion = readerVersions.get(entry) ?? readerSourceHash(entry);
  readerVersions.set(entry, readerVersion);
  const key = createHash('sha256')
    .update(bytes)
    .update(JSON.stringify({ ...options, ocr: undefined, arithmeticCheck: options?.arithmeticCheck !== undefined }))
    .update(poolOptionsKey)
    .update(await readerVersion)
    .digest('hex');
  const cached = join(readCacheDirectory, `${key}.json`);
  try {
    return JSON.parse(await readFile(cached, 'utf8')) as ReadDocument;
  } catch {
    const document = await readDocument(bytes, options);
    await mkdir(readCacheDirectory, { recursive: true });
    await writeFile(cached, JSON.stringify(document));
    return document;
  }
}

async function main(): Promise<void> {
  const expectedFiles = (await findExpectedFiles(corpusDirectory)).filter(
    (path) => onlyPaths.length === 0 || onlyPaths.some((only) => path.slice(corpusDirectory.length + 1).includes(only)),
  );
  let comparisons: Comparison[] = [];
  const badResults: string[][] = [];
  const lineItemResults: LineItemResult[] = [];
  const zugferdWithoutTruthRows: string[] = [];
  const ocr = new OcrPool({ size: ocrWorkers, ensembleSplit });
  const started = Date.now();
  try {
    for (const expectedPath of expectedFiles) {
      const expected = JSON.parse(await readFile(expectedPath, 'utf8')) as ExpectedFile;
      const documentPath = join(dirname(expectedPath), expected.document);
      const relative = documentPath.slice(corpusDirectory.length + 1);
      const isBad = relative.startsWith('bad/');
      const bytes = await asSent(new Uint8Array(await readFile(documentPath)), documentPath);
      let document: ReadDocument | undefined;
      let rejection: DocumentRejectedError | undefined;
      const readStarted = Date.now();
      try {
        document = await readThroughCache(bytes, { fileName: basename(documentPath), ocr });
      } catch (error) {
        if (!(error instanceof DocumentRejectedError)) throw error;
        rejection = error;
      }
      const seconds = ((Date.now() - readStarted) / 1000).toFixed(1);

      if (isBad) {
        const outcomes: string[] = [];
        let matchesExpectation: boolean;
        if (rejection || !document) {
          outcomes.push(`REJECTED ${rejection?.reason}: ${rejection?.message}`);
          matchesExpectation = ['empty', 'encrypted', 'truncated'].includes(expected.category ?? '');
        } else {
          const visible = expected.fields?.visible ?? {};
          const withXml = extractDocument(document, { configuration: defaultExtractionConfiguration });
          const pageOnly = extractDocument(document, { configuration: defaultExtractionConfiguration, useEmbeddedInvoice: false });
          const visibleComparisons = compare('bad/ visible page (no XML)', relative, pageOnly, visible);
          comparisons.push(...visibleComparisons);
          const visibleCorrect = visibleComparisons.filter((comparison) => comparison.correct).length;
          outcomes.push(`${pageOnly.status}; visible-page fields ${visibleCorrect}/${visibleComparisons.length} right`);
          if (document.embeddedInvoice) {
            const embeddedTruth = expected.fields?.embedded_xml ?? {};
            const embeddedComparisons = compare('bad/ embedded XML', relative, withXml, embeddedTruth);
            outcomes.push(`embedded XML read (${Object.keys(document.embeddedInvoice.values).length} values; with XML on, ${embeddedComparisons.filter((comparison) => comparison.correct).length}/${embeddedComparisons.length} match the XML truth)`);
          } else {
            outcomes.push('no embedded XML used');
          }
          matchesExpectation =
            (expected.category === 'truncated' && pageOnly.status !== 'COMPLETED') ||
            (['malformed embedded data', 'conflicting embedded data'].includes(expected.category ?? '') && pageOnly.status === 'COMPLETED' && visibleCorrect >= visibleComparisons.length * 0.6) ||
            (expected.category === 'truncated' && pageOnly.status === 'COMPLETED');
          if (expected.category === 'malformed embedded data') matchesExpectation &&= !document.embeddedInvoice;
          if (expected.category === 'conflicting embedded data') {
            // The default run (XML on) must flag the conflict and answer with the page's values.
            const flagged = withXml.status === 'COMPLETED' && (withXml.warnings ?? []).some((warning) => warning.code === 'EMBEDDED_INVOICE_CONFLICT');
            const defaultCorrect = compare('bad/ default run', relative, withXml, visible).filter((comparison) => comparison.correct).length;
            outcomes.push(`default run: conflict ${flagged ? 'flagged' : 'NOT flagged'}, ${defaultCorrect}/${visibleComparisons.length} visible-page fields`);
            matchesExpectation &&= flagged && defaultCorrect >= visibleComparisons.length * 0.6;
          }
        }
        badResults.push([relative, expected.category ?? '', matchesExpectation ? 'yes' : 'NO', `${seconds}s`, outcomes.join(' | ')]);
        continue;
      }
      const handLabels = await handLabelledRows(relative);
      if (!document) {
        console.log(`! ${relative}: rejected (${rejection?.reason}): ${rejection?.message}`);
        for (const field of Object.keys(expected.fields ?? {})) {
          if (comparedFieldNames.has(field)) comparisons.push({ source: 'rejected', file: relative, field, expected: expected.fields?.[field] as ExpectedValue, actual: null, correct: false });
        }
        if (handLabels) lineItemResults.push({ source: 'rejected', file: relative, score: scoreLineItems(handLabels, []), missingPrediction: 'document rejected' });
        continue;
      }
      const fields = expected.fields ?? {};
      // ZUGFeRD files are reported apart from the other text PDFs: they are one generator's layouts.
      const source = `${sourceOf(document)}${relative.startsWith('zugferd/') ? ' (ZUGFeRD)' : ''}`;
      const pageOnly = extractDocument(document, { configuration: defaultExtractionConfiguration, useEmbeddedInvoice: false });
      comparisons.push(...compare(`${source}, page only`, relative, pageOnly, fields));
      // Line-item truth: the hand labels, or for an e-invoice the rows its embedded XML gives.
      let lineItemTruth = handLabels;
      if (document.embeddedInvoice) {
        const withXml = extractDocument(document, { configuration: defaultExtractionConfiguration });
        comparisons.push(...compare(`${source}, with embedded XML`, relative, withXml, fields));
        // With a conflict the engine answers from the page, so that reading is no truth for the page's rows.
        if (!lineItemTruth && relative.startsWith('zugferd/')) {
          const xmlRows = (document.embeddedInvoice.notOnPage ?? []).length === 0 ? predictedLineItemsOf(withXml) : { missing: 'embedded XML set aside' };
          if ('rows' in xmlRows) lineItemTruth = xmlRows.rows.map((row) => row.cells);
          else zugferdWithoutTruthRows.push(relative);
        }
      }
      if (lineItemTruth) lineItemResults.push(scoreOutcomeLineItems(`${source}, page only`, relative, lineItemTruth, pageOnly));
      if (withDerivedScans && source.startsWith('text PDF')) {
        const scanSource = 'scanned PDF (derived from text PDF), OCR';
        try {
          const scanned = await readThroughCache(await derivedScanOf(bytes), { fileName: basename(documentPath), ocr, readEmbeddedXml: false });
          const scanOutcome = extractDocument(scanned, { configuration: defaultExtractionConfiguration });
          comparisons.push(...compare(scanSource, relative, scanOutcome, fields));
          if (lineItemTruth) lineItemResults.push(scoreOutcomeLineItems(scanSource, relative, lineItemTruth, scanOutcome));
        } catch (error) {
          // A scan whose pages all ran over the OCR time budget (a loaded machine) is rejected: every field counts as wrong.
          if (!(error instanceof DocumentRejectedError)) throw error;
          console.log(`! ${relative} (derived scan): rejected (${error.reason}): ${error.message}`);
          for (const [field, value] of Object.entries(fields)) {
            if (comparedFieldNames.has(field) && typeof value !== 'object') comparisons.push({ source: scanSource, file: relative, field, expected: field === 'doc_type' ? expectedDocType(value) : value, actual: null, correct: false });
          }
          if (lineItemTruth) lineItemResults.push({ source: scanSource, file: relative, score: scoreLineItems(lineItemTruth, []), missingPrediction: 'derived scan rejected' });
        }
      }
      if (verbose) console.log(`  read ${relative} in ${seconds}s (${source}, language ${document.language ?? '?'})`);
    }
  } finally {
    await ocr.terminate();
  }
  const impossibleExpectations = comparisons.filter(isImpossibleExpectation);
  comparisons = comparisons.filter((comparison) => !isImpossibleExpectation(comparison));

  const sources = [...new Set(comparisons.map((comparison) => comparison.source))].sort();
  const fieldNames = [...comparedFieldNames].filter((field) => comparisons.some((comparison) => comparison.field === field));
  /** "95.7% 156/163" for the comparisons selected, "-" for none. */
  const accuracyCell = (selected: readonly Comparison[]): string => {
    const correct = selected.filter((comparison) => comparison.correct).length;
    return selected.length === 0 ? '-' : `${percentage(correct, selected.length)} ${String(correct).padStart(2)}/${String(selected.length).padEnd(2)}`;
  };
  const cell = (field: string | undefined, source: string | undefined): string =>
    accuracyCell(comparisons.filter((comparison) => (field === undefined || comparison.field === field) && (source === undefined || comparison.source === source)));
  printTable('Accuracy per field and source (right / expected)', ['field', ...sources, 'all'], fieldNames.map((field) => [field, ...sources.map((source) => cell(field, source)), cell(field, undefined)]));
  const targetCell = (source: string): string => {
    const selected = comparisons.filter((comparison) => comparison.source === source && TARGET_FIELDS.includes(comparison.field));
    return percentage(selected.filter((comparison) => comparison.correct).length, selected.length);
  };
  printTable('Per source', ['source', 'all fields', `target fields (${TARGET_FIELDS.join(', ')})`], sources.map((source) => [source, cell(undefined, source), targetCell(source)]));
  // The issue's generalisation check: each field per corpus folder (receipts/ is the development set,
  // receipts-wide/ receipts nobody tuned to), and how far apart the folders are on it.
  const folderOf = (comparison: Comparison): string => comparison.file.split('/')[0] ?? comparison.file;
  const folders = [...new Set(comparisons.map(folderOf))].sort();
  if (folders.length > 1) {
    const folderCell = (field: string, folder: string | undefined): string =>
      accuracyCell(comparisons.filter((comparison) => comparison.field === field && (folder === undefined || folderOf(comparison) === folder)));
    const share = (field: string, folder: string): number | undefined => {
      const selected = comparisons.filter((comparison) => comparison.field === field && folderOf(comparison) === folder);
      return selected.length === 0 ? undefined : (100 * selected.filter((comparison) => comparison.correct).length) / selected.length;
    };
    const spread = (field: string): string => {
      const shares = folders.flatMap((folder) => share(field, folder) ?? []);
      return shares.length < 2 ? '-' : `${(Math.max(...shares) - Math.min(...shares)).toFixed(1)} points`;
    };
    printTable('Per folder', ['field', ...folders.map((folder) => `${folder}/`), 'together', 'highest - lowest'], fieldNames.map((field) => [field, ...folders.map((folder) => folderCell(field, folder)), folderCell(field, undefined), spread(field)]));
  }
  const absentKinds = ['text PDF', 'image (OCR)', 'scanned PDF', 'plain text'].filter((kind) => !sources.some((source) => source.startsWith(kind)));
  if (absentKinds.length > 0) console.log(`(no ${absentKinds.join(', ')} documents with ground truth in this corpus)`);

  const buckets: [number, number][] = [[0, 0.5], [0.5, 0.7], [0.7, 0.9], [0.9, 1.01]];
  const withConfidence = comparisons.filter((comparison) => comparison.confidence !== undefined && !comparison.source.includes('embedded XML'));
  printTable(
    'Calibration of metadata.confidence (extracted values compared with ground truth, embedded-XML runs excluded)',
    ['confidence', 'values', 'right', 'precision'],
    buckets.map(([low, high]) => {
      const selected = withConfidence.filter((comparison) => (comparison.confidence ?? 0) >= low && (comparison.confidence ?? 0) < high);
      const right = selected.filter((comparison) => comparison.correct).length;
      return [`[${low.toFixed(1)}, ${Math.min(1, high).toFixed(1)}${high > 1 ? ']' : ')'}`, String(selected.length), String(right), percentage(right, selected.length)];
    }),
  );
  printTable('bad/ files', ['file', 'category', 'as expected', 'read', 'outcome'], badResults);
  printLineItemReport(lineItemResults, zugferdWithoutTruthRows);

  if (impossibleExpectations.length > 0) {
    console.log('\nNot counted: expected values that fail their own format check (the engine reports none there):');
    for (const comparison of impossibleExpectations) {
      console.log(`  ${comparison.source.padEnd(40)} ${comparison.file.padEnd(52)} ${comparison.field.padEnd(16)} expected ${JSON.stringify(comparison.expected)} got ${JSON.stringify(comparison.actual)}`);
    }
  }
  if (verbose) {
    console.log('\nWrong or missing values:');
    for (const comparison of comparisons.filter((candidate) => !candidate.correct)) {
      console.log(`  ${comparison.source.padEnd(40)} ${comparison.file.padEnd(52)} ${comparison.field.padEnd(16)} expected ${JSON.stringify(comparison.expected)} got ${JSON.stringify(comparison.actual)}${comparison.confidence !== undefined ? ` (${comparison.confidence})` : ''}`);
    }
  }
  if (secondRecognitionStatistics.pages > 0) {
    const { pages, linesRecognized, wordsReplaced, failures, milliseconds } = secondRecognitionStatistics;
    console.log(`\nSecond recogniser (PP-OCRv4): ${linesRecognized} lines read on ${pages} pages (${(milliseconds / 1000 / pages).toFixed(2)} s per page, ${(milliseconds / 1000).toFixed(1)} s in all), ${wordsReplaced} words respelt${failures > 0 ? `, ${failures} pages where it failed` : ''}`);
  }
  if (secondLookStatistics.pages > 0) {
    const { pages, linesReread, wordsReplaced, milliseconds } = secondLookStatistics;
    console.log(`\nSecond look: ${linesReread} lines re-read on ${pages} pages (${(milliseconds / 1000 / pages).toFixed(2)} s per such page, ${(milliseconds / 1000).toFixed(1)} s in all), ${wordsReplaced} words replaced`);
  }
  if (headSecondLookStatistics.pagesChecked > 0) {
    const { pagesChecked, pagesReread, linesReplaced, linesAdded, milliseconds } = headSecondLookStatistics;
    console.log(`Head second look: ${pagesReread} of ${pagesChecked} page heads re-read (${(milliseconds / 1000 / pagesChecked).toFixed(2)} s per page checked, ${(milliseconds / 1000).toFixed(1)} s in all after the page reading), ${linesReplaced} lines respelt or extended, ${linesAdded} lines added`);
    const { started, used, notAgreeing } = headReadAheadStatistics;
    if (started > 0) console.log(`  read ahead during the page reading on ${started} pages: used on ${used}, read again on ${notAgreeing} (band or line height not as the page reading found them)`);
  }
  if (missedLineStatistics.pages > 0) {
    const { pages, regionsRead, linesAdded, milliseconds } = missedLineStatistics;
    console.log(`Missed lines: ${regionsRead} regions read on ${pages} pages (${(milliseconds / 1000 / pages).toFixed(2)} s per such page, ${(milliseconds / 1000).toFixed(1)} s in all), ${linesAdded} lines added`);
  }
  if (arithmeticStatistics.pages > 0) {
    const { pages, linesReread, pagesRepaired, milliseconds } = arithmeticStatistics;
    console.log(`Arithmetic re-read: ${linesReread} lines re-read on ${pages} pages whose total did not add up (${(milliseconds / 1000).toFixed(1)} s in all), ${pagesRepaired} pages repaired`);
  }
  console.log(`\n${expectedFiles.length} expected files, ${comparisons.length} field comparisons, ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

await main();
