// Finds the label phrases of every field in the document's segments. All fields' labels are matched
// together so that a longer label claims its words: "Invoice Date" is an issue-date label and not
// also an invoice-number label "Invoice" followed by the value "Date".

import { normalizeWithOffsets, type NormalizedText } from '../values/text-normalization.ts';
import { boxOfRange, type DocumentLayout, type LayoutSegment } from './document-layout.ts';
import type { Placement } from '../document.ts';
import { matchesOf } from '../values/pattern-matches.ts';

export interface LabelMatch {
  /** The field the label belongs to; undefined for a distractor label, which only claims its words. */
  fieldName: string | undefined;
  segment: LayoutSegment;
  /** Character range of the label in the segment's text. */
  start: number;
  end: number;
  language: string;
  /** How sure the words are a label for this field, in [0, 1]. */
  strength: number;
  box: Placement;
  /** The label is followed by ":" (or is the whole segment): it is a key, not part of a sentence. */
  isKey: boolean;
  /**
   * A qualifier of the label before it, never the start of a new value: inside parentheses ("Summe
   * Netto (excl. USt.)"), or after "incl."/"excl." ("Total Amt Incl. GST @ 6%", "Total RM Incl. of GST").
   */
  qualifiesLabelBefore: boolean;
  /** Nothing but a key separator before it in its segment. */
  atSegmentStart: boolean;
}

export interface LabelSource {
  fieldName: string | undefined;
  labels: Record<string, string[]>;
  /** Multiplies the strength of these labels: weak hints such as "Account holder" for the seller. */
  strengthFactor?: number;
}

// Languages that glue words into compounds: "Handelsrechnung Nr." ends with the label "Rechnung Nr.".
const COMPOUNDING_LANGUAGES = new Set(['de', 'nl']);
const ARTICLES = '(?:des|der|dem|den|vom|von|of|the|de|du|la|le|les|van|het|del|della|dello)';
const CURRENCY_BETWEEN_WORDS = String.raw`(?:(?:eur|usd|gbp|chf|pln|inr|€|\$|£|zl|in eur|en eur|w pln)\s+)?`;

interface CompiledLabel {
  fieldName: string | undefined;
  strengthFactor: number;
  /** A literal every match contains, checked before running the regular expression. */
  needle: string;
  /** The label's other literal words (all but "..."), which every match contains too. */
  otherWords: string[];
  language: string;
  phrase: string;
  pattern: RegExp;
  compounding: boolean;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compileLabel(fieldName: string | undefined, language: string, phrase: string, strengthFactor: number): CompiledLabel | undefined {
  const normalized = normalizeWithOffsets(phrase).text;
  if (normalized.length === 0) return undefined;
  // "..." in a label stands for an article and up to two words: "Rechnung ... Nr." matches
  // "Rechnung des Versicherers Nr." but not "Rechnung gemäß Bestellung Nr." (another document's number).
  const words = normalized.split(' ').map((word) => (word === '...' ? String.raw`(?:${ARTICLES}\s+(?:\S+\s+){1,2}?)?` : escapeRegExp(word)));
  const compounding = COMPOUNDING_LANGUAGES.has(language) && normalized.length >= 8;
  // A hyphen before a word makes it part of a compound ("MUSTER-KUNDE"): only compound labels match there.
  const leftBoundary = compounding ? '' : String.raw`(?<![\p{L}\p{N}_-])`;
  const rightBoundary = /[\p{L}\p{N}]$/u.test(normalized) ? String.raw`(?![\p{L}_])` : '';
  const body = words.reduce((pattern, word, index) => {
    if (index === 0) return word;
    const previousIsWildcard = normalized.split(' ')[index - 1] === '...';
    return previousIsWildcard ? `${pattern}${word}` : `${pattern}${String.raw`\)?\s*${CURRENCY_BETWEEN_WORDS}`}${word}`;
  }, '');
  const needle = normalized.split(' ').filter((word) => word !== '...').sort((left, right) => right.length - left.length)[0] ?? '';
  const otherWords = [...new Set(normalized.split(' ').filter((word) => word !== '...' && word !== needle))];
  return { fieldName, strengthFactor, needle, otherWords, language, phrase: normalized, pattern: new RegExp(`${leftBoundary}${body}${rightBoundary}`, 'gu'), compounding };
}

// Label sets are module constants (prebuilt) or parsed once per configuration: compile each set once.
const compiledByLabelSet = new WeakMap<Record<string, string[]>, Map<string, CompiledLabel[]>>();

function compileLabelSource(source: LabelSource): CompiledLabel[] {
  const key = sourceKey(source);
  let bySource = compiledByLabelSet.get(source.labels);
  const cached = bySource?.get(key);
  if (cached) return cached;
  const compiled: CompiledLabel[] = [];
  for (const [language, phrases] of Object.entries(source.labels)) {
    for (const phrase of phrases) {
      const label = compileLabel(source.fieldName, language, phrase, source.strengthFactor ?? 1);
      if (label) compiled.push(label);
    }
  }
  if (!bySource) {
    bySource = new Map();
    compiledByLabelSet.set(source.labels, bySource);
  }
  bySource.set(key, compiled);
  return compiled;
}

function sourceKey(source: LabelSource): string {
  return `${source.fieldName ?? ''}\u0000${source.strengthFactor ?? 1}`;
}

/**
 * Labels matched together, with an index from the first two characters of each label's needle to the
 * labels, so that a segment is scanned once for all needles instead of once per label.
 */
export interface CompiledLabelSet {
  labels: CompiledLabel[];
  /** Needles of two or more characters by the char codes of their first two characters. */
  needlesByPrefix: Map<number, LabelNeedle[]>;
  /** Needles of one character, and the empty needle, which every text contains. */
  shortNeedles: LabelNeedle[];
}

interface LabelNeedle {
  text: string;
  /** Positions in CompiledLabelSet.labels of the labels with this needle, ascending. */
  labelIndexes: number[];
}

function prefixKey(text: string, at: number): number {
  return text.charCodeAt(at) * 0x10000 + text.charCodeAt(at + 1);
}

function indexLabels(labels: CompiledLabel[]): CompiledLabelSet {
  const needles = new Map<string, LabelNeedle>();
  labels.forEach((label, index) => {
    const needle = needles.get(label.needle);
    if (needle) needle.labelIndexes.push(index);
    else needles.set(label.needle, { text: label.needle, labelIndexes: [index] });
  });
  const needlesByPrefix = new Map<number, LabelNeedle[]>();
  const shortNeedles: LabelNeedle[] = [];
  for (const needle of needles.values()) {
    if (needle.text.length < 2) {
      shortNeedles.push(needle);
      continue;
    }
    const key = prefixKey(needle.text, 0);
    needlesByPrefix.set(key, [...(needlesByPrefix.get(key) ?? []), needle]);
  }
  return { labels, needlesByPrefix, shortNeedles };
}

/** A node of the cache of label sets, keyed by each source's label record in turn. */
interface LabelSetCacheNode {
  next: WeakMap<Record<string, string[]>, Map<string, LabelSetCacheNode>>;
  set?: CompiledLabelSet;
}

// Routing and extraction ask for the same combinations of label records on every document. Keys are
// the records themselves (weakly held), so a configuration's labels leave the cache with it.
const labelSetCache: LabelSetCacheNode = { next: new WeakMap() };

export function compileLabelSources(sources: LabelSource[]): CompiledLabelSet {
  let node = labelSetCache;
  for (const source of sources) {
    let byKey = node.next.get(source.labels);
    if (!byKey) {
      byKey = new Map();
      node.next.set(source.labels, byKey);
    }
    const key = sourceKey(source);
    let child = byKey.get(key);
    if (!child) {
      child = { next: new WeakMap() };
      byKey.set(key, child);
    }
    node = child;
  }
  node.set ??= indexLabels(sources.flatMap(compileLabelSource));
  return node.set;
}

/** The char-code pairs (prefixKey) that occur in a text: where a needle can start. */
function characterPairsOf(text: string): Set<number> {
  const pairs = new Set<number>();
  for (let at = 0; at + 1 < text.length; at += 1) pairs.add(prefixKey(text, at));
  return pairs;
}

/**
 * Positions in the set's labels of the labels whose needle the text contains, ascending. Only needles
 * whose first two characters occur in the text are searched for: the set's pairs are looked up in the
 * text's, or the text's in the set's, whichever are fewer (a document's segments are searched with about
 * ten label sets, so the text's pairs are worked out once per segment, not once per set).
 */
function labelsWithNeedleIn(text: string, textPairs: Set<number>, labelSet: CompiledLabelSet): number[] {
  const found: number[] = [];
  const add = (needle: LabelNeedle): void => {
    if (text.includes(needle.text)) for (const index of needle.labelIndexes) found.push(index);
  };
  for (const needle of labelSet.shortNeedles) add(needle);
  if (labelSet.needlesByPrefix.size <= textPairs.size) {
    for (const [pair, needles] of labelSet.needlesByPrefix) if (textPairs.has(pair)) for (const needle of needles) add(needle);
  } else {
    for (const pair of textPairs) for (const needle of labelSet.needlesByPrefix.get(pair) ?? []) add(needle);
  }
  return found.length > 1 ? found.sort((left, right) => left - right) : found;
}

function labelStrength(phraseLength: number, options: { compoundPart: boolean; atStart: boolean; isKey: boolean; proseSegment: boolean }): number {
  let strength = 0.6 + 0.4 * Math.min(1, phraseLength / 14);
  if (options.compoundPart) strength *= 0.85;
  if (!options.atStart) strength *= 0.88;
  if (options.proseSegment && !options.atStart) strength *= 0.7;
  if (options.isKey) strength = Math.min(1, strength * 1.08);
  return strength;
}

// Routing, extraction and the search for printed embedded values read the same segments.
const normalizedSegments = new WeakMap<LayoutSegment, NormalizedText>();
export function normalizedSegmentText(segment: LayoutSegment): NormalizedText {
  let normalized = normalizedSegments.get(segment);
  if (!normalized) {
    normalized = normalizeWithOffsets(segment.text);
    normalizedSegments.set(segment, normalized);
  }
  return normalized;
}

/** A segment's normalized text and the character pairs in it, worked out once per layout. */
interface SearchableSegment {
  normalized: NormalizedText;
  pairs: Set<number>;
}

/**
 * Each of the layout's segments as label search needs it, by segment id: findLabelMatches runs about
 * ten times per document over every segment, and one look-up of the layout replaces one per segment and run.
 */
const searchableLayouts = new WeakMap<DocumentLayout, SearchableSegment[]>();
function searchableSegmentsOf(layout: DocumentLayout): SearchableSegment[] {
  let searchable = searchableLayouts.get(layout);
  if (!searchable) {
    searchable = layout.segments.map((segment) => {
      const normalized = normalizedSegmentText(segment);
      return { normalized, pairs: characterPairsOf(normalized.text) };
    });
    searchableLayouts.set(layout, searchable);
  }
  return searchable;
}

type FoundLabel = LabelMatch & { normalizedStart: number; normalizedEnd: number };

/** Every label occurrence in the document, with shorter labels inside longer ones removed. */
export function findLabelMatches(layout: DocumentLayout, labelSet: CompiledLabelSet): LabelMatch[] {
  const matches: LabelMatch[] = [];
  const searchableSegments = searchableSegmentsOf(layout);
  for (const segment of layout.segments) {
    const searchable = searchableSegments[segment.id] ?? { normalized: normalizedSegmentText(segment), pairs: characterPairsOf(normalizedSegmentText(segment).text) };
    const normalized = searchable.normalized;
    const labelIndexes = labelsWithNeedleIn(normalized.text, searchable.pairs, labelSet);
    // Most segments hold no needle of the set: nothing below is needed for them.
    if (labelIndexes.length === 0) continue;
    const page = layout.pages.find((candidate) => candidate.pageNumber === segment.pageNumber);
    // The title line ("Rechnung Nr. 4711 vom ...") names the document itself; its labels outrank
    // the same words in a reference table further down.
    const isTitle = layout.hasGeometry && segment.pageNumber === 1 && segment.box.y < 0.35 && segment.box.height >= (page?.typicalLineHeight ?? 1) * 1.3;
    let proseSegment: boolean | undefined;
    const found: FoundLabel[] = [];
    for (const labelIndex of labelIndexes) {
      const label = labelSet.labels[labelIndex]!;
      if (!label.otherWords.every((word) => normalized.text.includes(word))) continue;
      for (const match of matchesOf(label.pattern, normalized.text)) {
        const normalizedStart = match.index;
        const normalizedEnd = match.index + match[0].length;
        const start = normalized.originalOffsets[normalizedStart] ?? 0;
        const end = (normalized.originalOffsets[normalizedEnd - 1] ?? start) + 1;
        const compoundPart = label.compounding && normalizedStart > 0 && /\p{L}/u.test(normalized.text[normalizedStart - 1] ?? '');
        // A compound only counts when the label ends the compound's first word ("handelsrechnung nr").
        if (compoundPart && /\p{L}/u.test(normalized.text[normalizedEnd] ?? '')) continue;
        const before = segment.text.slice(0, start);
        const after = segment.text.slice(end);
        const isKey = /^\s*[:：]/.test(after) || after.trim().length === 0;
        const atStart = before.trim().length === 0 || /(?:[:|•·]|\s[–-])\s*$/.test(before);
        proseSegment ??= segment.text.split(/\s+/).length > 10;
        // "Rechnungssumme Netto (excl. USt.) 473,00": a label in parentheses qualifies another one.
        const insideParentheses = (before.match(/\(/g) ?? []).length > (before.match(/\)/g) ?? []).length;
        found.push({
          fieldName: label.fieldName,
          segment,
          start,
          end,
          language: label.language,
          strength: Math.min(1.1, labelStrength(label.phrase.replace(/\.\.\. /g, '').length, { compoundPart, atStart, isKey, proseSegment }) * (insideParentheses ? 0.5 : 1) * (isTitle ? 1.2 : 1) * label.strengthFactor),
          atSegmentStart: atStart,
          qualifiesLabelBefore: insideParentheses,
          box: boxOfRange(segment, start, end),
          isKey,
          normalizedStart,
          normalizedEnd,
        });
      }
    }
    if (found.length === 0) continue;
    found.sort((left, right) => right.end - right.start - (left.end - left.start));
    const kept: FoundLabel[] = [];
    for (const candidate of found) {
      const swallowed = kept.some(
        (longer) =>
          candidate.start >= longer.start &&
          candidate.end <= longer.end &&
          (longer.end - longer.start > candidate.end - candidate.start || longer.fieldName === candidate.fieldName),
      );
      if (!swallowed) kept.push(candidate);
    }
    for (const match of kept) {
      if (!match.qualifiesLabelBefore && qualifiesLabelBefore(match, kept)) {
        match.qualifiesLabelBefore = true;
        match.strength *= 0.5;
      }
    }
    for (const { normalizedStart: _start, normalizedEnd: _end, ...match } of kept) matches.push(match);
  }
  return matches.sort((left, right) => left.segment.id - right.segment.id || left.start - right.start);
}

/** "incl.", "inclusive of", "excl.", "inkl.", "zzgl.": what turns the tax label after it into a qualifier. */
const TAX_QUALIFIER_BEFORE = /(?<![\p{L}])(?:inc[l1|\]]?|inclusive|including|include|exc[l1|\]]?|exclusive|excluding|exclude|inkl|exkl|zzgl|ohne|without|with)\.?\s*(?:of\s*)?$/iu;
/** At most this many characters between a label and the qualifier that follows it ("Amt ", "RM "). */
const MAX_QUALIFIER_GAP = 12;

/**
 * A label right after "incl."/"excl." that follows another label on its line qualifies that label
 * ("Total Amt Incl. GST @ 6% : 159.00" is a total, and its GST is not a tax label whose value the
 * total's line holds); "Incl. GST: 1.56" alone on its line stays a label of its own.
 */
function qualifiesLabelBefore(match: LabelMatch, labels: LabelMatch[]): boolean {
  const before = match.segment.text.slice(0, match.start);
  if (!TAX_QUALIFIER_BEFORE.test(before)) return false;
  return labels.some((other) => other !== match && other.fieldName !== undefined && other.end <= match.start && match.start - other.end <= MAX_QUALIFIER_GAP + 16 && before.slice(other.end).replace(TAX_QUALIFIER_BEFORE, '').trim().length <= MAX_QUALIFIER_GAP);
}
