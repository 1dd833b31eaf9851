// Choosing the seller's and buyer's names needs what the generic selection does not know: a legal
// form that cuts a name short, OCR variants of the seller's name, a document title mistaken for a
// party, and a buyer known only from an unlabelled address block once the seller is chosen.

import { distance } from 'fastest-levenshtein';
import { normalizeForMatching } from '../values/text-normalization.ts';
import { calibrateConfidence } from './candidate-selection.ts';
import { findAddressBlocks, type AddressBlock, namesBusiness, withLegalFormRestored } from './document-evidence.ts';
import { fieldOfRole, type ExtractionContext } from './extraction-context.ts';
import type { FieldCandidate } from './field-candidate.ts';
import { resultFrom, type FieldResult } from './field-result.ts';

/** Words of a document title that are not part of the sender's name ("Sammy Maystone INVOICE"). */
export const TITLE_WORDS = new Set(['invoice', 'tax', 'receipt', 'rechnung', 'quittung', 'facture', 'factuur', 'faktura', 'fattura', 'factura', 'bill', 'payment', 'original', 'copy', 'kopie', 'credit', 'note', 'gutschrift', 'avoir']);

/**
 * A legal form ends a name where the line often goes on ("Rohstoff AG Salzgitter"): a candidate that
 * is the start of a longer one from the same line names the same party, and supports the longer value.
 */
export function withWholeNames(candidates: FieldCandidate[]): FieldCandidate[] {
  return candidates.map((candidate) => {
    if (typeof candidate.value !== 'string') return candidate;
    const shorter = candidate.value;
    // What follows must read as more of the name (a place, a word), not punctuation or a number.
    const whole = candidates.find(
      (other) =>
        other.segmentId === candidate.segmentId &&
        typeof other.value === 'string' &&
        other.value.startsWith(`${shorter} `) &&
        /^(?: \p{Lu}[\p{L}.&-]*){1,2}$/u.test(other.value.slice(shorter.length)),
    );
    return whole ? { ...candidate, value: whole.value } : candidate;
  });
}

/** Differences (per letter) between two readings of one name that OCR makes: "SANYO" for "SANYU". */
const OCR_VARIANT_DISTANCE = 0.2;

/** The same name read twice, once with a few letters misread. */
function isReadingOf(name: string, other: string): boolean {
  const longer = Math.max(name.length, other.length);
  return longer > 0 && distance(name, other) / longer <= OCR_VARIANT_DISTANCE;
}

/** "TAX INVOICE", "Invoice": the document's title, never a party. */
function isDocumentTitle(text: string): boolean {
  const words = normalizeForMatching(text).split(/[^\p{L}]+/u).filter(Boolean);
  return words.length > 0 && words.every((word) => TITLE_WORDS.has(word));
}

/**
 * An unlabelled address block that is not the seller's is the buyer's (window envelopes, bill-to
 * blocks without a heading); used only when nothing else named the buyer and the block is unique.
 * A till receipt names a private customer only under a label ("Customer:"): an unlabelled block there
 * is the buyer only when it names a business (a tax invoice to a shop); otherwise it is the shop's own
 * address or branch, a street, or pieces of the slip's lines.
 */
export function chooseBuyerFromAddressBlock(context: ExtractionContext, chosen: Map<string, FieldResult>): void {
  const buyerField = fieldOfRole(context, 'buyer-name');
  if (!buyerField || chosen.get(buyerField.name)?.value !== undefined) return;
  const sellerField = fieldOfRole(context, 'seller-name');
  const sellerName = sellerField ? chosen.get(sellerField.name)?.value : undefined;
  const sellerKey = typeof sellerName === 'string' ? normalizeForMatching(sellerName) : undefined;
  const namesSeller = (block: AddressBlock) =>
    sellerKey !== undefined &&
    (isReadingOf(normalizeForMatching(block.name), sellerKey) ||
      block.segments.some((segment) => normalizeForMatching(segment.text).includes(sellerKey) || sellerKey.includes(normalizeForMatching(block.name))));
  const onTill = context.specification.sellerHeadsDocument === true;
  const notSellers = findAddressBlocks(context.layout).filter((block) => !isDocumentTitle(block.name) && !namesSeller(block) && (!onTill || namesBusiness(block.name)));
  const outermost = notSellers.filter(
    (block) => context.parties.partyOf(block.nameSegment.id) !== 'seller' && !notSellers.some((other) => other !== block && other.segments.slice(1).includes(block.nameSegment)),
  );
  const block = outermost[0];
  if (!block || outermost.length !== 1) return;
  const candidate: FieldCandidate = {
    fieldName: buyerField.name,
    value: withLegalFormRestored(block.name),
    score: 0.45,
    pageNumber: block.nameSegment.pageNumber,
    box: block.nameSegment.box,
    segmentId: block.nameSegment.id,
    evidence: 'unlabelled address block',
  };
  chosen.set(buyerField.name, resultFrom(buyerField.name, candidate, calibrateConfidence(candidate.score, undefined), context.layout.hasGeometry));
}
