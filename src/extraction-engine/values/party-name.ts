// Company and person names of the parties. Legal-form suffixes ("GmbH", "B.V.", "Sp. z o.o.",
// "Pvt. Ltd.") are the strongest sign that a line names a company, in any language.

import { matchesOf } from './pattern-matches.ts';

const LEGAL_FORMS = [
  'GmbH [&+] Co\\. KG', 'GmbH [&+] Co KG', 'GmbH', 'gGmbH', 'mbH', 'AG', 'KGaA', 'KG', 'OHG', 'GbR', 'UG(?: \\(haftungsbeschränkt\\))?', 'e\\.K\\.', 'e\\.V\\.', 'a\\.G\\.', 'SE',
  'B\\.V\\.', 'BV', 'N\\.V\\.', 'NV', 'V\\.O\\.F\\.', 'VOF',
  'S\\.A\\.S\\.?', 'SAS', 'Sarl', 'SASU', 'S\\.A\\.R\\.L\\.?', 'SARL', 'EURL', 'S\\.A\\.', 'SA', 'SNC', 'S\\.à r\\.l\\.',
  'Sp\\. ?z ?o\\.o\\.', 'sp\\. ?z ?o\\.o\\.', 'S\\.K\\.A\\.', 'Sp\\. ?k\\.', 'Sp\\. j\\.',
  'S\\.L\\.U?\\.?', 'S\\.L\\.', 'SL', 'S\\.p\\.A\\.', 'SpA', 'S\\.r\\.l\\.', 'Srl', 'S\\.n\\.c\\.', 'S\\.a\\.s\\.',
  'GMBH', 'LTD\\.?', 'INC\\.?', 'LIMITED', 'Pvt\\.? Ltd\\.?', 'PVT\\.? LTD\\.?', 'Private Limited', 'Pty\\.? Ltd\\.?', 'Ltd\\.?', 'Limited', 'PLC', 'plc', 'LLP', 'LLC', 'L\\.L\\.C\\.', 'Inc\\.?', 'Corp\\.?', 'Corporation', 'Co\\.', 'Company',
  'Sdn\\.? Bhd\\.?', 'SDN\\.? BHD\\.?', 'S/B', 'Berhad', 'BERHAD', 'Bhd\\.?', 'BHD\\.?', 'Pte\\.? Ltd\\.?', 'PTE\\.? LTD\\.?', 'PTY\\.? LTD\\.?', 'Tbk\\.?', 'LTD\\.?',
  'Oy', 'Oyj', 'AB', 'A/S', 'ApS', 'AS', 'ASA', 's\\.r\\.o\\.', 'a\\.s\\.', 'Kft\\.?', 'Zrt\\.?', 'd\\.o\\.o\\.',
];

// A legal form must end a word sequence: followed by end, punctuation or a separator.
const LEGAL_FORM_PATTERN = new RegExp(`(?<![\\p{L}\\d])(?:${LEGAL_FORMS.join('|')})(?![\\p{L}\\d])`, 'gu');

// A second legal form right after the first ("Holz & Co. GmbH", "Smith & Co. Ltd"): the name's last word.
const FOLLOWING_LEGAL_FORM = new RegExp(`^ (?:${LEGAL_FORMS.join('|')})(?![\\p{L}\\d])`, 'u');

// The legal forms without the word boundaries: a quick test that rules most lines out.
const ANY_LEGAL_FORM = new RegExp(LEGAL_FORMS.join('|'), 'u');

const PREFIX_FORM_NAME = /^(?:SARL|S\.A\.R\.L\.|SAS|SASU|EURL|SNC|SCI|SELARL)\s+(?:(?:\p{Lu}[\p{L}'’&.-]*|de|du|des|la|le|et|&)\s?){1,5}/u;

const WHOLE_LEGAL_FORM = new RegExp(`^(?:${LEGAL_FORMS.join('|')})$`, 'u');

/** The text is a legal form and nothing else ("SDN BHD", "GmbH"). */
export function isLegalFormAlone(text: string): boolean {
  return WHOLE_LEGAL_FORM.test(text.trim());
}

export function hasLegalForm(text: string): boolean {
  return ANY_LEGAL_FORM.test(text) && new RegExp(LEGAL_FORM_PATTERN.source, 'u').test(text);
}

// Pieces of a letterhead line that separate the name from the address ("Acme GmbH | Europa-Allee 1").
const SEPARATOR = /\s[|●•·–\-]\s|\s[|●•·]|[|●•·]\s|:\s|;\s|,\s|\s{3,}/u;
// Lowercase words that may sit inside a company name; any other lowercase word ends it ("sold by").
const NAME_PARTICLES = new Set(['de', 'des', 'du', 'la', 'le', 'les', 'van', 'der', 'den', 'von', 'und', 'and', 'e', 'et', 'y', 'i', 'di', 'del', 'della', 'da', 'zu', 'am', 'im', '&', '+']);
const SENTENCE_END = /[.!?:]$/;
const SALUTATIONS = /^(?:attn\.?:?|attention:?|z\.?\s?hd\.?:?|c\/o|herrn?|frau|firma|mr\.?|mrs\.?|ms\.?|m\.|mme\.?|monsieur|madame|pan|pani|dhr\.?|mevr\.?|sr\.?|sra\.?|sig\.?|sig\.ra)\s+/i;

export interface FoundCompanyName {
  name: string;
  index: number;
  length: number;
}

/**
 * The company name ending in a legal form inside a line: walks left from the legal form over the
 * words of the name, stopping at separators, the end of a sentence or the start of the line.
 */
export function findCompanyNames(text: string): FoundCompanyName[] {
  const found: FoundCompanyName[] = [];
  if (!ANY_LEGAL_FORM.test(text)) return found;
  for (const match of matchesOf(new RegExp(LEGAL_FORM_PATTERN.source, 'gu'), text)) {
    const end = match.index + match[0].length;
    // ", Inc." and ", Ltd." belong to the name; the comma is not a separator there.
    const before = text.slice(0, match.index).replace(/,\s?$/, '  ').replace(/, $/, '  ');
    let start = 0;
    const separators = matchesOf(new RegExp(SEPARATOR.source, 'gu'), before);
    const lastSeparator = separators[separators.length - 1];
    if (lastSeparator) start = lastSeparator.index + lastSeparator[0].length;
    const words = before.slice(start).split(/\s+/).filter(Boolean);
    const kept: string[] = [];
    for (let position = words.length - 1; position >= 0; position -= 1) {
      const word = words[position] ?? '';
      if (SENTENCE_END.test(word) && !/^(?:[A-Z]\.)+$/.test(word) && kept.length > 0) break;
      if (SENTENCE_END.test(word) && kept.length === 0 && word.endsWith(':')) break;
      if (/^\d/.test(word) && kept.length > 0) break;
      if (/^\p{Ll}+$/u.test(word) && !NAME_PARTICLES.has(word)) break;
      if (WHOLE_LEGAL_FORM.test(word)) break;
      // A region or branch in parentheses is part of a legal name ("Nestlé (Malaysia) Berhad", "AEON CO.
      // (M) BHD"), when it is letters only and a name comes before it; any other parenthesis ends it.
      const qualifier = /\)$/.test(word) ? parenthesisedQualifier(words, position) : undefined;
      if (qualifier && kept.length <= 1) {
        kept.unshift(...words.slice(qualifier, position + 1));
        position = qualifier;
        continue;
      }
      if (/\)$/.test(word) || /^\(/.test(word)) break;
      if (kept.length >= 6) break;
      kept.unshift(word);
    }
    // A qualifier with no name before it is a remark, not a name.
    while (kept[0] !== undefined && /^\(/.test(kept[0])) {
      const closing = kept.findIndex((word) => /\)$/.test(word));
      kept.splice(0, closing + 1);
    }
    const joiner = /,\s?$/.test(text.slice(0, match.index)) ? ', ' : ' ';
    if (kept.length === 0) {
      // French forms often come first: "SARL Dupont Plomberie".
      const prefixed = PREFIX_FORM_NAME.exec(text.slice(start));
      if (prefixed && text.slice(start).startsWith(match[0])) {
        found.push({ name: prefixed[0].trim(), index: start, length: prefixed[0].trim().length });
      }
      continue;
    }
    const following = FOLLOWING_LEGAL_FORM.exec(text.slice(end))?.[0] ?? '';
    const name = (kept.join(' ') + joiner + match[0] + following).replace(/^[*\-–•,;:\s]+/, '').trim();
    if (kept.length === 0 || !/\p{L}{2}/u.test(kept.join(' '))) continue;
    found.push({ name, index: text.indexOf(kept[0] ?? '', start), length: end + following.length - text.indexOf(kept[0] ?? '', start) });
  }
  return found;
}

/**
 * Where the parenthesised qualifier ending at `end` starts ("(Schweiz)", "(North", "East)"): one to
 * three words of letters, no digits (a registration number in parentheses is no part of the name).
 */
function parenthesisedQualifier(words: string[], end: number): number | undefined {
  for (let start = end; start >= Math.max(0, end - 2); start -= 1) {
    const word = words[start] ?? '';
    if (!/^[\p{L}().&'’-]+$/u.test(word)) return undefined;
    if (word.startsWith('(')) return start > 0 ? start : undefined;
  }
  return undefined;
}

/** A name printed after a party label: salutations and trailing punctuation removed. */
export function cleanPartyName(text: string): string | undefined {
  let name = text.trim();
  const separatorAt = name.search(SEPARATOR);
  if (separatorAt > 0 && !hasLegalForm(name.slice(0, separatorAt)) && hasLegalForm(name)) {
    // Keep "Name GmbH" whole when the separator sits after it ("Name GmbH, Street 1").
    const companies = findCompanyNames(name);
    if (companies[0]) name = companies[0].name;
  } else if (separatorAt > 0) {
    name = name.slice(0, separatorAt);
  }
  name = name.replace(SALUTATIONS, '').replace(/[,;:|]+$/, '').trim();
  if (SALUTATIONS.test(`${name} `)) return undefined;
  // A parenthesised remark ("(Not to be used for payment)"), an e-mail or web address is not a name.
  if (name.startsWith('(') || /@|www\.|https?:/i.test(name)) return undefined;
  if (name.length < 2 || name.length > 80 || !/\p{L}{2}/u.test(name)) return undefined;
  if (/^\d/.test(name) && !hasLegalForm(name)) return undefined;
  // Names do not carry long numbers; "GLN 4304171000002" or "Kto 12345678" are identifiers.
  if (/\d{5,}/.test(name) || name.endsWith(':')) return undefined;
  return name;
}

/** "Globale Nummer: 4000001123452" is a key and its value, not a name heading a party block. */
export function looksLikeKeyAndValue(text: string): boolean {
  const withoutSalutation = text.trim().replace(SALUTATIONS, '');
  return /^[^:]{1,30}\s?:(?:\s*\S|\s*$)/.test(withoutSalutation);
}

/** Where the text holds legal forms ("SDN BHD", "GmbH"): start and end offsets of each. */
export function legalFormRanges(text: string): { start: number; end: number }[] {
  if (!ANY_LEGAL_FORM.test(text)) return [];
  return matchesOf(new RegExp(LEGAL_FORM_PATTERN.source, 'gu'), text).map((match) => ({ start: match.index, end: match.index + match[0].length }));
}
