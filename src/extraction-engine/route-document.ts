// Picks the document type from the content: routing keywords (weighted up when they are in the
// title area), the share of the type's field labels present, the media type and embedded e-invoice data.

import type { ReadDocument } from './document.ts';
import type { DocumentLayout } from './fields/document-layout.ts';
import type { DocumentTypeSpecification } from './fields/field-specification.ts';
import { compileLabelSources, findLabelMatches } from './fields/label-anchors.ts';

export interface RoutingScore {
  docType: string;
  score: number;
  keywordScore: number;
  labelledFieldShare: number;
}

const TITLE_WEIGHT = 3;
const MIN_SCORE = 1;

export function scoreDocumentTypes(document: ReadDocument, layout: DocumentLayout, specifications: DocumentTypeSpecification[]): RoutingScore[] {
  return specifications.map((specification) => {
    if (specification.mediaTypes && !specification.mediaTypes.includes(document.mediaType)) {
      return { docType: specification.docType, score: 0, keywordScore: 0, labelledFieldShare: 0 };
    }
    const keywordMatches = findLabelMatches(layout, compileLabelSources([{ fieldName: specification.docType, labels: specification.keywords }]));
    const weights = keywordMatches
      .map((match) => {
        const page = layout.pages.find((candidate) => candidate.pageNumber === match.segment.pageNumber);
        const row = page?.rows[match.segment.rowIndex];
        const isTitle =
          match.segment.pageNumber === 1 &&
          ((row !== undefined && row.index < 3) || (layout.hasGeometry && (match.segment.box.y < 0.3 || match.segment.box.height > (page?.typicalLineHeight ?? 1) * 1.3)));
        return isTitle ? TITLE_WEIGHT : 1;
      })
      .sort((left, right) => right - left)
      .slice(0, 5);
    const keywordScore = weights.reduce((sum, weight) => sum + weight, 0);
    const labelled = specification.fields.filter((field) => Object.keys(field.labels).length > 0);
    const fieldMatches = findLabelMatches(layout, compileLabelSources(labelled.map((field) => ({ fieldName: field.name, labels: field.labels }))));
    const labelledFields = new Set(fieldMatches.map((match) => match.fieldName));
    const labelledFieldShare = labelled.length > 0 ? labelledFields.size / labelled.length : 0;
    const embeddedBonus = document.embeddedInvoice && specification.fields.some((field) => field.name in (document.embeddedInvoice?.values ?? {})) ? 2 : 0;
    return {
      docType: specification.docType,
      score: keywordScore + 2 * labelledFieldShare + embeddedBonus,
      keywordScore: keywordScore + embeddedBonus,
      labelledFieldShare,
    };
  });
}

/** The best-scoring type, or undefined when no type has real evidence. */
export function routeDocument(document: ReadDocument, layout: DocumentLayout, specifications: DocumentTypeSpecification[]): RoutingScore | undefined {
  const scores = scoreDocumentTypes(document, layout, specifications);
  const eligible = scores.filter((score) => {
    const specification = specifications.find((candidate) => candidate.docType === score.docType);
    const hasKeywords = specification !== undefined && Object.keys(specification.keywords).length > 0;
    // Types without keywords route on their labels alone, which then must mostly be present.
    // Without its keywords (a till receipt rarely says "receipt"), a type needs most of its labels.
    return hasKeywords ? score.keywordScore >= MIN_SCORE || score.labelledFieldShare >= 0.3 : score.labelledFieldShare >= 0.5;
  });
  return eligible.sort((left, right) => right.score - left.score)[0];
}
