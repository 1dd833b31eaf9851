// Extracts the fields of one document type from a document's layout: label anchors first, then
// document-wide evidence for the prebuilt roles, then value selection with consistency checks
// (net + tax = total, issue date before due date) and a calibrated confidence per field.

import type { Placement, ReadDocument } from '../document.ts';
import { inferNumericDateOrder } from '../values/date.ts';
import { findDates } from '../values/date.ts';
import { parseValueOfType, type FieldValue, type ValueContext } from '../values/field-value.ts';
import { findIdentifierAtStart } from '../values/identifier.ts';
import { normalizeForMatching } from '../values/text-normalization.ts';
import { boxOfRange, buildDocumentLayout, type DocumentLayout } from './document-layout.ts';
import {
  companyNameCandidates,
  currencyCandidates,
  findReturnAddressSegments,
  findAddressBlocks,
  ibanCandidates,
  impliedCurrencyCandidates,
  letterheadCandidates,
  PartyBlocks,
  returnAddressCandidates,
  vatIdCandidates,
  type Party,
} from './document-evidence.ts';
import type { FieldCandidate } from './field-candidate.ts';
import { calibrateConfidence, groupByValue, roundConfidence } from './candidate-selection.ts';
import type { DocumentTypeSpecification, FieldRole, FieldSpecification } from './field-specification.ts';
import { compileLabelSources, findLabelMatches, type LabelMatch } from './label-anchors.ts';
import { candidatesNearLabel } from './label-candidates.ts';
import { lineItemCandidate } from './line-items.ts';
import { selectAmounts } from './amount-consistency.ts';

export interface FieldResult {
  name: string;
  value: FieldValue | undefined;
  confidence?: number;
  pageNumber?: number;
  /** Only when the document has real geometry. */
  placement?: Placement;
  evidence?: string;
}

export interface ValidationProblem {
  fields: string[];
  message: string;
}

export interface FieldExtraction {
  fields: FieldResult[];
  validationProblems: ValidationProblem[];
}

const MIN_REPORTED_SCORE = 0.3;

const DATE_LINKING_WORDS = new Set(['vom', 'von', 'du', 'of', 'dated', 'from', 'z', 'dnia', 'van', 'del', 'de', 'le', 'am', 'issued', 'on', 'at', 'il', 'en', 'd.d.', 'dd']);

const TITLE_WORDS = new Set(['invoice', 'tax', 'receipt', 'rechnung', 'quittung', 'facture', 'factuur', 'faktura', 'fattura', 'factura', 'bill', 'payment', 'original', 'copy', 'kopie', 'credit', 'note', 'gutschrift', 'avoir']);

const ROLE_PARTY: Partial<Record<FieldRole, Party>> = { 'seller-name': 'seller', 'buyer-name': 'buyer', 'seller-vat-id': 'seller', 'buyer-vat-id': 'buyer' };

function allText(document: ReadDocument): string[] {
  return document.pages.flatMap((page) => page.lines.map((line) => line.text));
}

export interface ExtractFieldsOptions {
  /** Reuse a layout built for routing. */
  layout?: DocumentLayout;
}

export function extractFields(document: ReadDocument, specification: DocumentTypeSpecification, options: ExtractFieldsOptions = {}): FieldExtraction {
  const layout = options.layout ?? buildDocumentLayout(document);
  const language = document.language;
  const fieldsByName = new Map(specification.fields.map((field) => [field.name, field]));
  const fieldOfRole = (role: FieldRole): FieldSpecification | undefined => specification.fields.find((field) => field.role === role);

  const compiled = compileLabelSources([
    ...specification.fields.map((field) => ({ fieldName: field.name, labels: field.labels })),
    ...specification.fields.flatMap((field) => (field.weakLabels ? [{ fieldName: field.name, labels: field.weakLabels, strengthFactor: 0.55 }] : [])),
    { fieldName: undefined, labels: specification.distractorLabels },
  ]);
  const labelMatches = findLabelMatches(layout, compiled);
  const labelsBySegment = new Map<number, LabelMatch[]>();
  for (const label of labelMatches) labelsBySegment.set(label.segment.id, [...(labelsBySegment.get(label.segment.id) ?? []), label]);

  // Currency and date order first: both change how other values are read.
  const documentCurrencies = currencyCandidates(layout, language);
  const likelyCurrency = groupByValue(documentCurrencies)[0]?.value;
  const dateOrder = inferNumericDateOrder({
    texts: allText(document),
    ...(language ? { language } : {}),
    ...(typeof likelyCurrency === 'string' ? { currency: likelyCurrency } : {}),
  });

  const partyLabels = labelMatches.flatMap((label) => {
    const role = label.fieldName ? fieldsByName.get(label.fieldName)?.role : undefined;
    const party = role === 'seller-name' ? 'seller' : role === 'buyer-name' ? 'buyer' : undefined;
    return party && label.isKey ? [{ label, party: party as Party }] : [];
  });
  const returnAddress = findReturnAddressSegments(layout);
  const parties = new PartyBlocks(layout, partyLabels, returnAddress);

  const candidates = new Map<string, FieldCandidate[]>(specification.fields.map((field) => [field.name, []]));
  const add = (list: FieldCandidate[]): void => {
    for (const candidate of list) candidates.get(candidate.fieldName)?.push(candidate);
  };

  for (const label of labelMatches) {
    const field = label.fieldName ? fieldsByName.get(label.fieldName) : undefined;
    if (!field) continue;
    const valueContext: ValueContext = {
      dateOrder,
      ...(language ? { language } : {}),
      ...(field.allowedValues ? { allowedValues: field.allowedValues } : {}),
      ...(field.patterns.length > 0 ? { patterns: field.patterns } : {}),
      ...(field.shape ? { shape: field.shape } : {}),
    };
    let found = candidatesNearLabel(field, label, { layout, labelsBySegment, valueContext });
    const party = field.role ? ROLE_PARTY[field.role] : undefined;
    if (party && (field.role === 'seller-vat-id' || field.role === 'buyer-vat-id')) {
      // The same "VAT id" label serves both parties: whose block it is in decides.
      const owner = parties.partyOf(label.segment.id) ?? 'seller';
      found = found.map((candidate) => ({ ...candidate, score: candidate.score * (owner === party ? 1 : 0.25) }));
    }
    add(found);

    // "Rechnung Nr. 471102 vom 05.03.2018", "Facture n°562044387 du 02 Juillet 2015": a date right
    // after the document number is the issue date.
    const issueDateField = fieldOfRole('issue-date');
    if (field.role === 'document-number' && issueDateField) {
      const after = label.segment.text.slice(label.end);
      const identifier = findIdentifierAtStart(after);
      if (identifier) {
        const restStart = label.end + identifier.index + identifier.length;
        const nextRow = layout.pages.find((page) => page.pageNumber === label.segment.pageNumber)?.rows[label.segment.rowIndex + 1];
        const wrapped = nextRow?.segments.find((segment) => Math.abs(segment.box.x - label.segment.box.x) < 0.02);
        // "... Nr. 471102 vom" with the date on the next line of the title.
        const restOfTitle = label.segment.text.slice(restStart).trim().toLowerCase();
        const places = [
          { segment: label.segment, offset: restStart },
          ...(wrapped && (restOfTitle === '' || DATE_LINKING_WORDS.has(restOfTitle)) ? [{ segment: wrapped, offset: 0 }] : []),
        ];
        for (const place of places) {
          const rest = place.segment.text.slice(place.offset);
          const date = findDates(rest, { order: dateOrder })[0];
          if (!date) continue;
          // Only linking words may stand between the number and its date ("vom", "du", "of", "z dnia").
          const between = rest.slice(0, date.index).trim().toLowerCase().split(/\s+/).filter(Boolean);
          if (between.some((word) => !DATE_LINKING_WORDS.has(word.replace(/[,:]$/, '')))) continue;
          const start = place.offset + date.index;
          add([{ fieldName: issueDateField.name, value: date.iso, score: 0.72 * label.strength, pageNumber: place.segment.pageNumber, box: boxOfRange(place.segment, start, start + date.length), segmentId: place.segment.id, evidence: 'date after the document number' }]);
          break;
        }
      }
    }
  }

  // Receipts and letters often print their date without a label: the first date on the first page
  // that no other date label claims is a weak issue-date candidate.
  const issueDateField = fieldOfRole('issue-date');
  if (issueDateField) {
    const claimed = new Set(
      labelMatches.filter((label) => label.fieldName !== issueDateField.name && fieldsByName.get(label.fieldName ?? '')?.type === 'date').map((label) => label.segment.id),
    );
    const firstPage = layout.pages[0];
    const firstDate = firstPage?.rows
      .flatMap((row) => row.segments)
      .filter((segment) => !claimed.has(segment.id))
      .map((segment) => ({ segment, date: findDates(segment.text, { order: dateOrder })[0] }))
      .find((entry) => entry.date !== undefined);
    if (firstDate?.date) {
      const { segment, date } = firstDate;
      add([{ fieldName: issueDateField.name, value: date.iso, score: 0.38, pageNumber: segment.pageNumber, box: boxOfRange(segment, date.index, date.index + date.length), segmentId: segment.id, evidence: 'first unlabelled date' }]);
    }
  }

  // Configured patterns of a field without labels are searched in the whole document.
  for (const field of specification.fields) {
    if (field.patterns.length === 0 || Object.keys(field.labels).length > 0) continue;
    add(patternCandidates(layout, field, { dateOrder, ...(language ? { language } : {}), patterns: field.patterns, ...(field.allowedValues ? { allowedValues: field.allowedValues } : {}) }));
  }

  // Document-wide evidence for the prebuilt roles.
  for (const field of specification.fields) {
    switch (field.role) {
      case 'currency':
        add(documentCurrencies.map((candidate) => ({ ...candidate, fieldName: field.name })));
        if (documentCurrencies.length === 0) add(impliedCurrencyCandidates(layout, language).map((candidate) => ({ ...candidate, fieldName: field.name })));
        break;
      case 'iban':
        add(ibanCandidates(layout, field.name, parties));
        break;
      case 'seller-vat-id':
        add(vatIdCandidates(layout, field.name, 'seller', parties));
        break;
      case 'buyer-vat-id':
        add(vatIdCandidates(layout, field.name, 'buyer', parties));
        break;
      case 'seller-name':
        add(companyNameCandidates(layout, field.name, 'seller', parties));
        add(letterheadCandidates(layout, field.name, TITLE_WORDS, parties, new Set(labelMatches.filter((label) => label.atSegmentStart).map((label) => label.segment.id))));
        break;
      case 'buyer-name':
        add(companyNameCandidates(layout, field.name, 'buyer', parties));
        break;
      case 'line-item-count': {
        const totalsRoles = new Set<FieldRole>(['net-amount', 'total-amount', 'tax-amount', 'amount-due']);
        const candidate = lineItemCandidate(layout, field.name, labelMatches, (label) => {
          const role = label.fieldName ? fieldsByName.get(label.fieldName)?.role : undefined;
          return role !== undefined && totalsRoles.has(role) && label.atSegmentStart;
        });
        if (candidate) add([candidate]);
        break;
      }
      default:
        break;
    }
  }
  const sellerField = fieldOfRole('seller-name');
  const buyerField = fieldOfRole('buyer-name');
  if (sellerField && buyerField) add(returnAddressCandidates(layout, returnAddress, sellerField.name, buyerField.name));

  // Selection.
  const chosen = new Map<string, FieldResult>();
  const amountRoles = { net: fieldOfRole('net-amount'), tax: fieldOfRole('tax-amount'), total: fieldOfRole('total-amount'), due: fieldOfRole('amount-due') };
  const amountSelection = selectAmounts({
    net: amountRoles.net ? candidates.get(amountRoles.net.name) ?? [] : [],
    tax: amountRoles.tax ? candidates.get(amountRoles.tax.name) ?? [] : [],
    total: amountRoles.total ? candidates.get(amountRoles.total.name) ?? [] : [],
    due: amountRoles.due ? candidates.get(amountRoles.due.name) ?? [] : [],
  });
  for (const [role, selection] of Object.entries(amountSelection) as [keyof typeof amountRoles, (typeof amountSelection)[keyof typeof amountSelection]][]) {
    const field = amountRoles[role];
    if (!field || !selection) continue;
    chosen.set(field.name, resultFrom(field.name, selection.candidate, selection.confidence, layout.hasGeometry));
  }

  for (const field of specification.fields) {
    if (chosen.has(field.name)) continue;
    const groups = groupByValue(candidates.get(field.name) ?? []);
    const best = groups[0];
    // Below this, a value is more often wrong than right; reporting nothing is more useful.
    if (!best || best.score < MIN_REPORTED_SCORE) {
      chosen.set(field.name, { name: field.name, value: undefined });
      continue;
    }
    chosen.set(field.name, resultFrom(field.name, best.best, calibrateConfidence(best.score, groups[1]?.score), layout.hasGeometry, best.value));
  }

  // An unlabelled address block that is not the seller's is the buyer's (window envelopes, bill-to
  // blocks without a heading); used only when nothing else named the buyer.
  if (buyerField && chosen.get(buyerField.name)?.value === undefined) {
    const sellerName = sellerField ? chosen.get(sellerField.name)?.value : undefined;
    const sellerKey = typeof sellerName === 'string' ? normalizeForMatching(sellerName) : undefined;
    const buyerBlocks = findAddressBlocks(layout).filter(
      (block) => !sellerKey || !block.segments.some((segment) => normalizeForMatching(segment.text).includes(sellerKey) || sellerKey.includes(normalizeForMatching(block.name))),
    );
    const outermost = buyerBlocks.filter(
      (candidate) => parties.partyOf(candidate.nameSegment.id) !== 'seller' && !buyerBlocks.some((other) => other !== candidate && other.segments.slice(1).includes(candidate.nameSegment)),
    );
    const block = outermost[0];
    if (block && outermost.length === 1) {
      chosen.set(buyerField.name, resultFrom(buyerField.name, { fieldName: buyerField.name, value: block.name, score: 0.45, pageNumber: block.nameSegment.pageNumber, box: block.nameSegment.box, segmentId: block.nameSegment.id, evidence: 'unlabelled address block' }, 0.45, layout.hasGeometry));
    }
  }

  const validationProblems = applyValidations(specification, chosen);
  return { fields: specification.fields.map((field) => chosen.get(field.name) ?? { name: field.name, value: undefined }), validationProblems };
}

function patternCandidates(layout: DocumentLayout, field: FieldSpecification, valueContext: ValueContext): FieldCandidate[] {
  const found: FieldCandidate[] = [];
  for (const segment of layout.segments) {
    for (const pattern of field.patterns) {
      for (const match of segment.text.matchAll(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`))) {
        const text = match[1] ?? match[0];
        const value = parseValueOfType(field.type, text, valueContext);
        if (value === undefined) continue;
        const start = match.index + Math.max(0, match[0].indexOf(text));
        // Earlier matches score a little higher: documents state their key references first.
        found.push({ fieldName: field.name, value, score: Math.max(0.5, 0.75 - 0.05 * found.length), pageNumber: segment.pageNumber, box: boxOfRange(segment, start, start + text.length), segmentId: segment.id, evidence: `pattern ${pattern.source}` });
      }
    }
  }
  return found;
}

function resultFrom(name: string, candidate: FieldCandidate, confidence: number, hasGeometry: boolean, value: FieldValue = candidate.value): FieldResult {
  return {
    name,
    value,
    confidence,
    pageNumber: candidate.pageNumber,
    ...(hasGeometry ? { placement: clampPlacement(candidate.box) } : {}),
    evidence: candidate.evidence,
  };
}

function clampPlacement(box: Placement): Placement {
  const x = Math.min(1, Math.max(0, box.x));
  const y = Math.min(1, Math.max(0, box.y));
  const round = (value: number): number => Math.round(value * 10000) / 10000;
  return { x: round(x), y: round(y), width: round(Math.min(1 - x, Math.max(0, box.width))), height: round(Math.min(1 - y, Math.max(0, box.height))) };
}

/**
 * Checks the configured rules on the chosen values. A broken rule lowers the confidence of the
 * fields involved; the caller fails the extraction when one of them is required.
 */
export function applyValidations(specification: DocumentTypeSpecification, chosen: Map<string, FieldResult>): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const lower = (names: string[]): void => {
    for (const name of names) {
      const result = chosen.get(name);
      if (result?.confidence !== undefined) result.confidence = roundConfidence(result.confidence * 0.6);
    }
  };
  for (const validation of specification.validations) {
    if (validation.rule === 'sum') {
      const addends = validation.fields.map((name) => chosen.get(name)?.value);
      const total = chosen.get(validation.equals)?.value;
      if (typeof total !== 'number' || addends.some((value) => typeof value !== 'number')) continue;
      const sum = (addends as number[]).reduce((accumulator, value) => accumulator + value, 0);
      if (Math.abs(sum - total) > validation.tolerance + 1e-9) {
        const names = [...validation.fields, validation.equals];
        lower(names);
        problems.push({ fields: names, message: `${validation.fields.join(' + ')} = ${Math.round(sum * 100) / 100}, but ${validation.equals} is ${total}` });
      }
    } else {
      const first = chosen.get(validation.field)?.value;
      const second = chosen.get(validation.other)?.value;
      if (typeof first !== 'string' || typeof second !== 'string') continue;
      const broken = validation.allowEqual ? first > second : first >= second;
      if (broken) {
        lower([validation.field, validation.other]);
        problems.push({ fields: [validation.field, validation.other], message: `${validation.field} (${first}) is not before ${validation.other} (${second})` });
      }
    }
  }
  return problems;
}

/** Normalizes an embedded e-invoice value for a field's type; undefined when it does not fit. */
export function embeddedValueFor(field: FieldSpecification, raw: string | number): FieldValue | undefined {
  return parseValueOfType(field.type, raw, { ...(field.allowedValues ? { allowedValues: field.allowedValues } : {}) });
}
