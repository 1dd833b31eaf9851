// Picks the document type from the content: routing keywords (weighted up when they are in the
// title area), the share of the type's field labels present, the media type and embedded e-invoice data.

import type { ReadDocument } from './document.ts';
import type { DocumentLayout } from './fields/document-layout.ts';
import type { DocumentTypeSpecification } from './fields/field-specification.ts';
import { compileLabelSources, findLabelMatches } from './fields/label-anchors.ts';
import { normalizeForMatching } from './values/text-normalization.ts';

export interface RoutingScore {
  docType: string;
  score: number;
  keywordScore: number;
  labelledFieldShare: number;
}

const TITLE_WEIGHT = 3;
const MIN_SCORE = 1;
/** Distinct supporting keywords ("cashier", "change") count from two on: one alone is chance. */
const MIN_SUPPORTING_KEYWORDS = 2;
const MAX_SUPPORTING_KEYWORDS = 6;
/**
 * Each distinct till word weighs more than a plain keyword mention: a till slip titled "TAX INVOICE"
 * (a GST/VAT requirement) that names a cashier, cash, change and a farewell is a receipt.
 */
const SUPPORTING_KEYWORD_WEIGHT = 1.5;
/**
 * A keyword followed by a field word or a key separator ("Bill No", "Invoice Date", "Bill Start:",
 * "Closed Bill:") labels a field; it is not the document's title, however near the top it is printed.
 */
const FIELD_LABEL_WEIGHT = 0.5;
const KEYWORD_AS_FIELD_LABEL = /^\s*(?:(?:no|nr|number|num|date|id|ref)\b|#|:|\p{L}+\s*:)/iu;
/**
 * A till roll (58 or 80 mm) prints 32-56 characters a line; a slip photographed or scanned whole
 * shows at most about 70 across the picture, where an A4 or letter page holds 90-130.
 */
const MAX_CHARACTERS_ACROSS_ROLL = 72;
/**
 * Words measured before the page's width is trusted: a few large title letters say nothing, but a
 * fuel or parking slip of nine lines holds a dozen (a 20-word floor left those unrouted).
 */
const MIN_WORDS_MEASURED = 12;
/**
 * The paper outweighs a "TAX INVOICE" title and one more mention of it (GST/VAT law has tills print
 * one, and delivery slips repeat it in their footer); the type's own keywords and labels then decide.
 */
const ROLL_PAPER_WEIGHT = 4;
/** A word measured for its character width: letters, digits and the punctuation inside numbers. */
const MEASURED_WORD = /^[\p{L}\p{N}.,:/-]{3,}$/u;

/**
 * How many characters of the first page's typical word width fit across the page, or undefined when
 * the page has no real geometry or too few words to tell.
 */
export function charactersAcrossFirstPage(layout: DocumentLayout): number | undefined {
  if (!layout.hasGeometry) return undefined;
  const page = layout.pages[0];
  const widths = (page?.rows ?? [])
    .flatMap((row) => row.segments.flatMap((segment) => segment.words))
    .filter((word) => MEASURED_WORD.test(word.text) && word.box.width > 0)
    .map((word) => word.box.width / word.text.length)
    .sort((left, right) => left - right);
  if (widths.length < MIN_WORDS_MEASURED) return undefined;
  const median = widths[Math.floor(widths.length / 2)] ?? 0;
  return median > 0 ? 1 / median : undefined;
}

function hasAnyLabel(layout: DocumentLayout, docType: string, labels: Record<string, string[]>): boolean {
  return findLabelMatches(layout, compileLabelSources([{ fieldName: docType, labels }])).length > 0;
}

function isRollPaper(layout: DocumentLayout): boolean {
  const across = charactersAcrossFirstPage(layout);
  return across !== undefined && across <= MAX_CHARACTERS_ACROSS_ROLL;
}

/** The keyword part of a type's score and the embedded-data bonus; the costly label share is left at 0. */
function keywordEvidence(document: ReadDocument, layout: DocumentLayout, specification: DocumentTypeSpecification): { keywordScore: number; embeddedBonus: number; applies: boolean } {
  if (specification.mediaTypes && !specification.mediaTypes.includes(document.mediaType)) return { keywordScore: 0, embeddedBonus: 0, applies: false };
  const keywordMatches = findLabelMatches(layout, compileLabelSources([{ fieldName: specification.docType, labels: specification.keywords }]));
  const weights = keywordMatches
    .map((match) => {
      const page = layout.pages.find((candidate) => candidate.pageNumber === match.segment.pageNumber);
      const row = page?.rows[match.segment.rowIndex];
      const labelsAField = KEYWORD_AS_FIELD_LABEL.test(match.segment.text.slice(match.end));
      const isTitle =
        !labelsAField &&
        match.segment.pageNumber === 1 &&
        ((row !== undefined && row.index < 3) || (layout.hasGeometry && (match.segment.box.y < 0.3 || match.segment.box.height > (page?.typicalLineHeight ?? 1) * 1.3)));
      return isTitle ? TITLE_WEIGHT : labelsAField ? FIELD_LABEL_WEIGHT : 1;
    })
    .sort((left, right) => right - left)
    .slice(0, 5);
  const supporting = specification.supportingKeywords
    ? new Set(findLabelMatches(layout, compileLabelSources([{ fieldName: specification.docType, labels: specification.supportingKeywords }])).map((match) => normalizeForMatching(match.segment.text.slice(match.start, match.end))))
    : new Set<string>();
  const supportingScore = supporting.size >= MIN_SUPPORTING_KEYWORDS ? SUPPORTING_KEYWORD_WEIGHT * Math.min(MAX_SUPPORTING_KEYWORDS, supporting.size) : 0;
  const paperScore = specification.printedOnRolls && isRollPaper(layout) && !hasAnyLabel(layout, specification.docType, specification.printedOnRolls.unlessLabelled) ? ROLL_PAPER_WEIGHT : 0;
  const keywordScore = weights.reduce((sum, weight) => sum + weight, 0) + supportingScore + paperScore;
  const embeddedBonus = document.embeddedInvoice && specification.fields.some((field) => field.name in (document.embeddedInvoice?.values ?? {})) ? 2 : 0;
  return { keywordScore, embeddedBonus, applies: true };
}

function labelledFieldShareOf(layout: DocumentLayout, specification: DocumentTypeSpecification): number {
  const labelled = specification.fields.filter((field) => Object.keys(field.labels).length > 0);
  const fieldMatches = findLabelMatches(layout, compileLabelSources(labelled.map((field) => ({ fieldName: field.name, labels: field.labels }))));
  const labelledFields = new Set(fieldMatches.map((match) => match.fieldName));
  return labelled.length > 0 ? labelledFields.size / labelled.length : 0;
}

function scoreOf(specification: DocumentTypeSpecification, evidence: { keywordScore: number; embeddedBonus: number; applies: boolean }, labelledFieldShare: number): RoutingScore {
  if (!evidence.applies) return { docType: specification.docType, score: 0, keywordScore: 0, labelledFieldShare: 0 };
  return {
    docType: specification.docType,
    score: evidence.keywordScore + 2 * labelledFieldShare + evidence.embeddedBonus,
    keywordScore: evidence.keywordScore + evidence.embeddedBonus,
    labelledFieldShare,
  };
}

export function scoreDocumentTypes(document: ReadDocument, layout: DocumentLayout, specifications: DocumentTypeSpecification[]): RoutingScore[] {
  return specifications.map((specification) => {
    const evidence = keywordEvidence(document, layout, specification);
    return scoreOf(specification, evidence, evidence.applies ? labelledFieldShareOf(layout, specification) : 0);
  });
}

function isEligible(score: RoutingScore, specification: DocumentTypeSpecification): boolean {
  const hasKeywords = Object.keys(specification.keywords).length > 0;
  // Types without keywords route on their labels alone, which then must mostly be present.
  // Without its keywords (a till receipt rarely says "receipt"), a type needs most of its labels.
  return hasKeywords ? score.keywordScore >= MIN_SCORE || score.labelledFieldShare >= 0.3 : score.labelledFieldShare >= 0.5;
}

/**
 * The best-scoring type (the first of equals), or undefined when no type has real evidence. Label
 * shares are the costly part of a score: a type that could not beat the best eligible score found so
 * far even with all its labels present is not scored further; it could not have been chosen.
 */
export function routeDocument(document: ReadDocument, layout: DocumentLayout, specifications: DocumentTypeSpecification[]): RoutingScore | undefined {
  const candidates = specifications.map((specification, index) => {
    const evidence = keywordEvidence(document, layout, specification);
    return { specification, index, evidence, highestScore: evidence.applies ? evidence.keywordScore + 2 + evidence.embeddedBonus : 0 };
  });
  let best: { score: RoutingScore; index: number } | undefined;
  for (const candidate of candidates.sort((left, right) => right.highestScore - left.highestScore)) {
    if (best && candidate.highestScore < best.score.score) break;
    const share = candidate.evidence.applies ? labelledFieldShareOf(layout, candidate.specification) : 0;
    const score = scoreOf(candidate.specification, candidate.evidence, share);
    if (!isEligible(score, candidate.specification)) continue;
    if (!best || score.score > best.score.score || (score.score === best.score.score && candidate.index < best.index)) best = { score, index: candidate.index };
  }
  return best?.score;
}
