// Finds the label phrases of every field in the document's segments. All fields' labels are matched
// together so that a longer label claims its words: "Invoice Date" is an issue-date label and not
// also an invoice-number label "Invoice" followed by the value "Date".

import { normalizeWithOffsets, type NormalizedText } from '../values/text-normalization.ts';
import { boxOfRange, type DocumentLayout, type LayoutSegment } from './document-layout.ts';
import type { Placement } from '../document.ts';
import { matchesOf } from '../values/pattern-matches.ts';

/**
 * Words that address the recipient and are followed by their name without a colon: the Italian
 * "Spett.le Bianchi S.p.A." (spettabile, to the esteemed). They key the name as "Cliente:" does.
 */
const ADDRESSING_WORD = /^(?:spett\.?\s?le|spettabile)$/iu;

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
 * Every needle of every label set compiled so far, numbered once for the whole process. A document is
 * searched with about a dozen label sets (routing keywords, till words, each type's field labels, item
 * headers, prior payments...), and most of their needles are shared; which needles a segment holds is
 * worked out once per layout for all sets together (segmentNeedlesOf), and each set then only looks
 * up its own labels among them. Needles are the labels' words, so the registry grows with the distinct
 * label words of the configurations seen, not with documents.
 */
const needleIdsByText = new Map<string, number>();
const needleTexts: string[] = [];
/** Ids of the needles of two or more characters by the char codes of their first two characters. */
const needleIdsByPrefix = new Map<number, number[]>();
/** Ids of the needles of one character, and of the empty needle, which every text contains. */
const shortNeedleIds: number[] = [];

function needleIdOf(text: string): number {
  let id = needleIdsByText.get(text);
  if (id === undefined) {
    id = needleTexts.length;
    needleTexts.push(text);
    needleIdsByText.set(text, id);
    if (text.length < 2) shortNeedleIds.push(id);
    else {
      const key = prefixKey(text, 0);
      const sameStart = needleIdsByPrefix.get(key);
      if (sameStart) sameStart.push(id);
      else needleIdsByPrefix.set(key, [id]);
    }
  }
  return id;
}

/** Labels matched together, with the positions of the labels of each needle (by needle id). */
export interface CompiledLabelSet {
  labels: CompiledLabel[];
  /** Needle id to the positions in `labels` of the labels with that needle, ascending. */
  labelIndexesByNeedle: Map<number, number[]>;
}

function prefixKey(text: string, at: number): number {
  return text.charCodeAt(at) * 0x10000 + text.charCodeAt(at + 1);
}

function indexLabels(labels: CompiledLabel[]): CompiledLabelSet {
  const labelIndexesByNeedle = new Map<number, number[]>();
  labels.forEach((label, index) => {
    const id = needleIdOf(label.needle);
    const indexes = labelIndexesByNeedle.get(id);
    if (indexes) indexes.push(index);
    else labelIndexesByNeedle.set(id, [index]);
  });
  return { labels, labelIndexesByNeedle };
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

/** Which registered needles a segment's normalized text contains. */
interface SegmentNeedles {
  /** Ids of the needles it contains, among the first `checkedNeedles` ids. */
  ids: number[];
  /** How many needles of the registry it has been checked for. */
  checkedNeedles: number;
}

/**
 * Adds the needles registered since the segment was last checked that its text contains. The first
 * time, only needles starting with one of the text's character pairs are tried; after that, the few
 * newly registered needles (a configuration's label set seen for the first time) one by one.
 */
function checkNewNeedles(text: string, found: SegmentNeedles): void {
  const registered = needleTexts.length;
  if (found.checkedNeedles === registered) return;
  const from = found.checkedNeedles;
  const contains = (id: number): void => {
    if (id >= from && id < registered && text.includes(needleTexts[id]!)) found.ids.push(id);
  };
  for (const id of shortNeedleIds) contains(id);
  if (from === 0) {
    const pairs = new Set<number>();
    for (let at = 0; at + 1 < text.length; at += 1) pairs.add(prefixKey(text, at));
    for (const pair of pairs) for (const id of needleIdsByPrefix.get(pair) ?? []) contains(id);
  } else {
    for (let id = from; id < registered; id += 1) if (needleTexts[id]!.length >= 2) contains(id);
  }
  found.checkedNeedles = registered;
}

/** Positions in the set's labels of the labels whose needle the segment contains, ascending. */
function labelsWithNeedleIn(found: SegmentNeedles, labelSet: CompiledLabelSet): number[] {
  const labelIndexes: number[] = [];
  for (const id of found.ids) {
    const indexes = labelSet.labelIndexesByNeedle.get(id);
    if (indexes) for (const index of indexes) labelIndexes.push(index);
  }
  return labelIndexes.length > 1 ? labelIndexes.sort((left, right) => left - right) : labelIndexes;
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

/** A segment's normalized text and the needles found in it, worked out once per layout. */
interface SearchableSegment {
  normalized: NormalizedText;
  needles: SegmentNeedles;
}

/**
 * Each of the layout's segments as label search needs it, in the layout's order: findLabelMatches
 * runs about a dozen times per document over every segment, and one look-up of the layout replaces
 * one per segment and run.
 */
const searchableLayouts = new WeakMap<DocumentLayout, SearchableSegment[]>();
function searchableSegmentsOf(layout: DocumentLayout): SearchableSegment[] {
  let searchable = searchableLayouts.get(layout);
  if (!searchable) {
    searchable = layout.segments.map((segment) => ({ normalized: normalizedSegmentText(segment), needles: { ids: [], checkedNeedles: 0 } }));
    searchableLayouts.set(layout, searchable);
  }
  return searchable;
}

type FoundLabel = LabelMatch & { normalizedStart: number; normalizedEnd: number };

/** Every label occurrence in the document, with shorter labels inside longer ones removed. */
export function findLabelMatches(layout: DocumentLayout, labelSet: CompiledLabelSet): LabelMatch[] {
  const matches: LabelMatch[] = [];
  const searchableSegments = searchableSegmentsOf(layout);
  for (let segmentIndex = 0; segmentIndex < layout.segments.length; segmentIndex += 1) {
    const segment = layout.segments[segmentIndex]!;
    const searchable = searchableSegments[segmentIndex]!;
    const normalized = searchable.normalized;
    checkNewNeedles(normalized.text, searchable.needles);
    const labelIndexes = labelsWithNeedleIn(searchable.needles, labelSet);
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
        const isKey = /^\s*[:：]/.test(after) || after.trim().length === 0 || ADDRESSING_WORD.test(segment.text.slice(start, end));
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
