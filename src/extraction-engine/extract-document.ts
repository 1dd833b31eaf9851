// From a read document to the extraction outcome: route to a document type, check the language,
// extract the fields, prefer embedded e-invoice values, and decide COMPLETED, FAILED or REJECTED.

import { ulid } from 'ulidx';
import type { ExtractionConfiguration } from './configuration/extraction-configuration-schema.ts';
import { placementOnPageAsGiven, placementOnWholePage, type DocumentPage, type PageArithmeticCheck, type Placement, type ReadDocument, type RejectionReason } from './document.ts';
import { documentTypeSpecifications } from './document-types.ts';
import { buildDocumentLayout, boxOfRange, type DocumentLayout } from './fields/document-layout.ts';
import { embeddedValueFor, extractFields, type FieldResult, type TotalCheck } from './fields/extract-fields.ts';
import { clampPlacement } from './fields/field-result.ts';
import type { DocumentTypeSpecification, FieldSpecification } from './fields/field-specification.ts';
import type { ExtractedTable, TableRow } from './fields/table-specification.ts';
import { normalizedSegmentText } from './fields/label-anchors.ts';
import { routeDocument } from './route-document.ts';
import { findAmounts, rememberingAmounts } from './values/amount.ts';
import { findDates } from './values/date.ts';
import type { FieldType, FieldValue } from './values/field-value.ts';
import { findIbans } from './values/iban.ts';
import { normalizeWithOffsets } from './values/text-normalization.ts';

export { duplicatePolicyOf } from './configuration/parse-extraction-configuration.ts';

export interface ExtractedField {
  id: string;
  name: string;
  type: FieldType;
  /** Normalized per type; a `table` field's value is its rows; null when the field was not found. */
  value: FieldValue | TableRowValues[] | null;
  metadata: {
    extracted: boolean;
    /** In [0, 1]: how often a value with this confidence is right (see README, Extraction). */
    confidence?: number;
    /** 1-based. */
    page?: number;
    /** For a table, its region on its first page. */
    placement?: Placement;
    /** Tables only: per row (same order as the value) where it is and how sure, and per cell. */
    rows?: ExtractedRowMetadata[];
  };
}

/** One row of a table field: column name to value; columns the document does not print are omitted. */
export type TableRowValues = Record<string, string | number>;

export interface ExtractedRowMetadata {
  confidence: number;
  page: number;
  placement?: Placement;
  cells: Record<string, { confidence: number; placement?: Placement }>;
}

/** Something the caller should know about a completed extraction, without failing it. */
export interface ExtractionWarning {
  code: 'EMBEDDED_INVOICE_CONFLICT';
  message: string;
}

export type ExtractionOutcome =
  | { status: 'COMPLETED'; docType: string; fields: ExtractedField[]; pageCount: number; warnings?: ExtractionWarning[] }
  | { status: 'FAILED'; code: 'DOCUMENT_NOT_ROUTED' | 'DOCUMENT_EXTRACTION_FAILED'; message: string }
  | { status: 'REJECTED'; reason: RejectionReason; message: string };

export interface ExtractDocumentOptions {
  configuration: ExtractionConfiguration;
  /** Caller labels; `docType` forces the document type. */
  labels?: Record<string, string>;
  /** Take values from an embedded e-invoice (Factur-X, ZUGFeRD, XRechnung, UBL) when present. Default true. */
  useEmbeddedInvoice?: boolean;
  /** Field id factory; defaults to "fld_" + ULID. Tests pass a deterministic one. */
  createFieldId?: () => string;
}

// ulid's default random source asks the OS for one byte per character; drawing the same bytes from
// a pool costs a fraction of that for the sixteen characters of every field id.
const randomPool = new Uint8Array(512);
let randomPoolUsed = randomPool.length;
function pooledRandom(): number {
  if (randomPoolUsed === randomPool.length) {
    crypto.getRandomValues(randomPool);
    randomPoolUsed = 0;
  }
  return randomPool[randomPoolUsed++]! / 0xff;
}

const LANGUAGE_NAMES: Record<string, string> = { en: 'English', de: 'German', fr: 'French', nl: 'Dutch', pl: 'Polish', es: 'Spanish', it: 'Italian' };

function chooseDocumentType(
  document: ReadDocument,
  layout: DocumentLayout,
  specifications: DocumentTypeSpecification[],
  forcedDocType: string | undefined,
): { specification: DocumentTypeSpecification } | { failure: string } {
  if (forcedDocType !== undefined) {
    const forced = specifications.find((specification) => specification.docType === forcedDocType);
    if (forced) return { specification: forced };
    const known = specifications.map((specification) => specification.docType).join(', ');
    return { failure: `labels.docType "${forcedDocType}" is not a document type of this workspace (configured: ${known}).` };
  }
  const routed = routeDocument(document, layout, specifications);
  const specification = routed && specifications.find((candidate) => candidate.docType === routed.docType);
  if (!specification) {
    const known = specifications.map((candidate) => candidate.docType).join(', ');
    return { failure: `The document does not match any configured document type (${known}); pass labels.docType to choose one.` };
  }
  return { specification };
}

/** Where an embedded value is printed on the page, so that it still gets a page and placement. */
function locatePrintedValue(layout: DocumentLayout, type: FieldType, value: FieldValue): { pageNumber: number; box: Placement } | undefined {
  const needle = typeof value === 'string' ? normalizeWithOffsets(value).text : '';
  for (const segment of layout.segments) {
    if (typeof value === 'number') {
      const amount = findAmounts(segment.text).find((found) => !found.isPercentage && Math.abs(found.value - value) < 0.005);
      if (amount) return { pageNumber: segment.pageNumber, box: boxOfRange(segment, amount.index, amount.index + amount.length) };
      continue;
    }
    if (typeof value !== 'string') continue;
    if (type === 'date') {
      const date = findDates(segment.text).find((found) => found.iso === value);
      if (date) return { pageNumber: segment.pageNumber, box: boxOfRange(segment, date.index, date.index + date.length) };
      continue;
    }
    if (type === 'iban') {
      const iban = findIbans(segment.text).find((found) => found.iban === value);
      if (iban) return { pageNumber: segment.pageNumber, box: boxOfRange(segment, iban.index, iban.index + iban.length) };
      continue;
    }
    if (value.length < 2) continue;
    const haystack = normalizedSegmentText(segment);
    const at = haystack.text.indexOf(needle);
    if (at >= 0 && needle.length > 0) {
      const start = haystack.originalOffsets[at] ?? 0;
      const end = (haystack.originalOffsets[at + needle.length - 1] ?? start) + 1;
      return { pageNumber: segment.pageNumber, box: boxOfRange(segment, start, end) };
    }
  }
  return undefined;
}

function withEmbeddedValues(fields: FieldResult[], specification: DocumentTypeSpecification, document: ReadDocument, layout: DocumentLayout): FieldResult[] {
  const embedded = document.embeddedInvoice?.values ?? {};
  return fields.map((result) => {
    const field = specification.fields.find((candidate) => candidate.name === result.name) as FieldSpecification;
    const raw = embedded[result.name];
    if (raw === undefined) return result;
    const value = embeddedValueFor(field, raw);
    if (value === undefined) return result;
    const sameAsPage = result.value !== undefined && String(result.value).toLowerCase() === String(value).toLowerCase();
    const located = sameAsPage && result.pageNumber !== undefined ? undefined : locatePrintedValue(layout, field.type, value);
    const pageNumber = sameAsPage ? result.pageNumber : located?.pageNumber;
    const placement = sameAsPage ? result.placement : located && layout.hasGeometry ? located.box : undefined;
    return {
      name: result.name,
      value,
      confidence: 1,
      ...(pageNumber !== undefined ? { pageNumber } : {}),
      ...(placement ? { placement } : {}),
      evidence: 'embedded e-invoice',
    };
  });
}

/** XML rows take at most this confidence when the page's table does not show them. */
const EMBEDDED_ROW_NOT_ON_PAGE = 0.8;

/**
 * The XML's invoice lines are the item table, exactly; each row takes its page, box and cell boxes
 * from the page's row with the same line total. Rows the page's table does not show are counted, so
 * the caller can flag the disagreement.
 */
function withEmbeddedLineItems(fields: FieldResult[], specification: DocumentTypeSpecification, document: ReadDocument, layout: DocumentLayout): { results: FieldResult[]; rowsNotOnPage: number } {
  const lineItems = document.embeddedInvoice?.lineItems;
  const field = specification.fields.find((candidate) => candidate.role === 'line-items');
  if (!lineItems || !field) return { results: fields, rowsNotOnPage: 0 };
  const pageTable = fields.find((result) => result.name === field.name)?.table;
  const unused = [...(pageTable?.rows ?? [])];
  let rowsNotOnPage = 0;
  const rows: TableRow[] = lineItems.map((values) => {
    const amount = values.amount;
    const matchIndex = unused.findIndex((row) => typeof amount === 'number' && typeof row.values.amount === 'number' && Math.abs(row.values.amount - amount) < 0.005);
    const match = matchIndex >= 0 ? unused.splice(matchIndex, 1)[0] : undefined;
    if (!match) rowsNotOnPage += 1;
    const located = !match && typeof amount === 'number' ? locatePrintedValue(layout, 'amount', amount) : undefined;
    const confidence = match ? 1 : EMBEDDED_ROW_NOT_ON_PAGE;
    const cells = Object.fromEntries(Object.keys(values).map((name) => [name, { confidence, ...(match?.cells[name]?.placement ? { placement: match.cells[name].placement } : {}) }]));
    const placement = match?.placement ?? (located && layout.hasGeometry ? located.box : undefined);
    return { values, confidence, pageNumber: match?.pageNumber ?? located?.pageNumber ?? 1, ...(placement ? { placement } : {}), cells };
  });
  const table: ExtractedTable = {
    rows,
    confidence: rowsNotOnPage === 0 ? 1 : EMBEDDED_ROW_NOT_ON_PAGE,
    pageNumber: pageTable?.pageNumber ?? rows[0]?.pageNumber ?? 1,
    ...(pageTable?.placement ? { placement: pageTable.placement } : {}),
  };
  const result: FieldResult = { name: field.name, value: undefined, confidence: table.confidence, pageNumber: table.pageNumber, ...(table.placement ? { placement: table.placement } : {}), evidence: 'embedded e-invoice', table };
  return { results: [...fields.filter((candidate) => candidate.name !== field.name), result], rowsNotOnPage: pageTable ? rowsNotOnPage : 0 };
}

export function extractDocument(document: ReadDocument, options: ExtractDocumentOptions): ExtractionOutcome {
  return rememberingAmounts(() => extractReadDocument(document, options));
}

function extractReadDocument(document: ReadDocument, options: ExtractDocumentOptions): ExtractionOutcome {
  const specifications = documentTypeSpecifications(options.configuration);
  const layout = buildDocumentLayout(document);
  const chosen = chooseDocumentType(document, layout, specifications, options.labels?.docType);
  if ('failure' in chosen) return { status: 'FAILED', code: 'DOCUMENT_NOT_ROUTED', message: chosen.failure };
  const { specification } = chosen;

  if (document.language && specification.languages && !specification.languages.includes(document.language)) {
    const name = LANGUAGE_NAMES[document.language] ?? document.language;
    return {
      status: 'REJECTED',
      reason: 'language-not-accepted',
      message: `The document is in ${name} (${document.language}), which is not accepted for document type ${specification.docType} (accepted: ${specification.languages.join(', ')}).`,
    };
  }

  const extraction = extractFields(document, specification, { layout });
  // An embedded XML whose invoice number or total is not printed on the page describes another
  // document (a copied template, a wrong attachment): the page is what the sender signed off, so its
  // values win, and the output says why the XML was set aside.
  const conflicting = document.embeddedInvoice?.notOnPage ?? [];
  const useEmbedded = (options.useEmbeddedInvoice ?? true) && conflicting.length === 0;
  const embeddedRows = useEmbedded && document.embeddedInvoice ? withEmbeddedLineItems(withEmbeddedValues(extraction.fields, specification, document, layout), specification, document, layout) : undefined;
  const results = embeddedRows?.results ?? extraction.fields;
  const warnings: ExtractionWarning[] =
    (options.useEmbeddedInvoice ?? true) && conflicting.length > 0
      ? [
          {
            code: 'EMBEDDED_INVOICE_CONFLICT',
            message: `The embedded e-invoice XML does not match the visible page (${conflicting.join(', ')} not printed on it); values were read from the page.`,
          },
        ]
      : [];
  if (embeddedRows?.rowsNotOnPage) {
    warnings.push({
      code: 'EMBEDDED_INVOICE_CONFLICT',
      message: `The line items of the embedded e-invoice XML disagree with the visible page (${embeddedRows.rowsNotOnPage} of ${document.embeddedInvoice?.lineItems?.length ?? 0} rows not found in the page's table); the XML's rows are returned.`,
    });
  }

  const missing = specification.fields.filter((field) => {
    const result = results.find((candidate) => candidate.name === field.name);
    return field.required && result?.value === undefined && result?.table === undefined;
  });
  if (missing.length > 0) {
    const names = missing.map((field) => field.name).join(', ');
    return {
      status: 'FAILED',
      code: 'DOCUMENT_EXTRACTION_FAILED',
      message: `Required field${missing.length > 1 ? 's' : ''} ${names} ${missing.length > 1 ? 'were' : 'was'} not found as a valid ${missing.map((field) => field.type).join('/')} value.`,
    };
  }
  const requiredNames = new Set(specification.fields.filter((field) => field.required).map((field) => field.name));
  const brokenRule = extraction.validationProblems.find((problem) => problem.fields.some((name) => requiredNames.has(name)));
  if (brokenRule) {
    const names = brokenRule.fields.filter((name) => requiredNames.has(name)).join(', ');
    return { status: 'FAILED', code: 'DOCUMENT_EXTRACTION_FAILED', message: `Required field ${names} failed validation: ${brokenRule.message}.` };
  }

  const createFieldId = options.createFieldId ?? (() => `fld_${ulid(undefined, pooledRandom)}`);
  const fields = specification.fields.map((field): ExtractedField => {
    const result = results.find((candidate) => candidate.name === field.name);
    if (result?.table) return tableField(createFieldId(), field, result.table);
    const extracted = result?.value !== undefined;
    return {
      id: createFieldId(),
      name: field.name,
      type: field.type,
      value: extracted ? (result?.value as FieldValue) : null,
      metadata: {
        extracted,
        ...(extracted && result?.confidence !== undefined ? { confidence: result.confidence } : {}),
        ...(extracted && result?.pageNumber !== undefined ? { page: result.pageNumber } : {}),
        ...(extracted && result?.placement ? { placement: result.placement } : {}),
      },
    };
  });
  const onPagesAsGiven = placedOnPagesAsGiven(document.pages);
  return { status: 'COMPLETED', docType: specification.docType, fields: fields.map(onPagesAsGiven), pageCount: document.pageCount, ...(warnings.length > 0 ? { warnings } : {}) };
}

/**
 * The field's boxes put back on the pages as given: a page OCR read turned upright (DocumentPage.turn),
 * or only the paper of (DocumentPage.paper), had its fields found on that upright paper, while a client
 * draws the boxes over the page it sent.
 */
function placedOnPagesAsGiven(pages: readonly DocumentPage[]): (field: ExtractedField) => ExtractedField {
  const readAs = new Map<number, Pick<DocumentPage, 'turn' | 'paper'>>(
    pages.flatMap((page) => (page.turn || page.paper ? [[page.pageNumber, { turn: page.turn, paper: page.paper }] as const] : [])),
  );
  if (readAs.size === 0) return (field) => field;
  const onPage = (page: number | undefined, placement: Placement | undefined): { placement?: Placement } => {
    const read = page === undefined ? undefined : readAs.get(page);
    if (!placement) return {};
    if (!read) return { placement };
    const onPaper = read.turn ? placementOnPageAsGiven(placement, read.turn) : placement;
    return { placement: clampPlacement(read.paper ? placementOnWholePage(onPaper, read.paper) : onPaper) };
  };
  return (field) => {
    const { placement: _placement, rows, ...metadata } = field.metadata;
    return {
      ...field,
      metadata: {
        ...metadata,
        ...onPage(field.metadata.page, field.metadata.placement),
        ...(rows
          ? {
              rows: rows.map(({ placement: rowPlacement, cells, ...row }) => ({
                ...row,
                ...onPage(row.page, rowPlacement),
                cells: Object.fromEntries(Object.entries(cells).map(([name, { placement: cellPlacement, ...cell }]) => [name, { ...cell, ...onPage(row.page, cellPlacement) }])),
              })),
            }
          : {}),
      },
    };
  };
}

function tableField(id: string, field: FieldSpecification, table: ExtractedTable): ExtractedField {
  return {
    id,
    name: field.name,
    type: field.type,
    value: table.rows.map((row) => row.values),
    metadata: {
      extracted: true,
      confidence: table.confidence,
      page: table.pageNumber,
      ...(table.placement ? { placement: table.placement } : {}),
      rows: table.rows.map((row) => ({
        confidence: row.confidence,
        page: row.pageNumber,
        ...(row.placement ? { placement: row.placement } : {}),
        cells: row.cells,
      })),
    },
  };
}

/**
 * The field finder's arithmetic as a check the readers can run on one OCR page (ReadDocumentOptions.
 * arithmeticCheck): the page is routed and its fields found as if it were the document; when the
 * chosen total disagrees with what the page prints to check it (tendered minus change, the rate lines,
 * net plus tax), the lines of the total and of that check are the ones to read again.
 */
export function totalArithmeticCheck(options: Pick<ExtractDocumentOptions, 'configuration' | 'labels'>): PageArithmeticCheck {
  const specifications = documentTypeSpecifications(options.configuration);
  const checkOf = (page: DocumentPage): TotalCheck | undefined => {
    const document: ReadDocument = { mediaType: 'image/png', pageCount: 1, pages: [{ ...page, pageNumber: 1 }], hasGeometry: true };
    return rememberingAmounts(() => {
      const layout = buildDocumentLayout(document);
      const chosen = chooseDocumentType(document, layout, specifications, options.labels?.docType);
      return 'failure' in chosen ? undefined : extractFields(document, chosen.specification, { layout }).totalCheck;
    });
  };
  return {
    linesToReread(page) {
      const check = checkOf(page);
      if (!check || check.agrees) return [];
      return page.lines.flatMap((line, index) => (line.placement && check.boxes.some((box) => sameLine(line.placement!, box)) ? [index] : []));
    },
    agrees: (page) => checkOf(page)?.agrees === true,
  };
}

/** Whether a value's box lies on the line: it overlaps the line across and its middle is within the line's height. */
function sameLine(line: Placement, box: Placement): boolean {
  const middle = box.y + box.height / 2;
  return middle >= line.y && middle <= line.y + line.height && box.x < line.x + line.width && line.x < box.x + box.width;
}
