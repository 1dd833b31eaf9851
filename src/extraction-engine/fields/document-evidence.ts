// Evidence that is not tied to one label: currency signs anywhere, valid IBANs and VAT ids in
// footers, company names recognised by their legal form, the letterhead, the sender line above an
// envelope window, and whose block (seller's or buyer's) a piece of text sits in.

import { findAmounts } from '../values/amount.ts';
import { CURRENCY_OF_COUNTRY, findCountryMentions, namesPostalTown, weighCountries, type CountryMention } from '../values/country.ts';
import { findCurrencyMentions } from '../values/currency.ts';
import { findIbans, type FoundIban } from '../values/iban.ts';
import { cleanPartyName, findCompanyNames, hasLegalForm, isLegalFormAlone, legalFormRanges, looksLikeKeyAndValue, type FoundCompanyName } from '../values/party-name.ts';
import { findVatIds, type FoundVatId } from '../values/vat-id.ts';
import { normalizeForMatching } from '../values/text-normalization.ts';
import { boxOfRange, unitePlacements, type DocumentLayout, type LayoutPage, type LayoutSegment } from './document-layout.ts';
import type { FieldCandidate } from './field-candidate.ts';
import type { LabelMatch } from './label-anchors.ts';

export type Party = 'seller' | 'buyer';

interface PartyBlock {
  party: Party;
  pageNumber: number;
  firstRow: number;
  lastRow: number;
  left: number;
  right: number;
}

/** Which party's address block each segment belongs to, from party labels and the sender line. */
export class PartyBlocks {
  private readonly blocks: PartyBlock[] = [];

  constructor(
    private readonly layout: DocumentLayout,
    partyLabels: { label: LabelMatch; party: Party }[],
    returnAddressSegments: LayoutSegment[],
  ) {
    const starts = [
      ...partyLabels.map(({ label, party }) => ({ segment: label.segment, party, left: label.box.x, belowOnly: false })),
      ...returnAddressSegments.map((segment) => ({ segment, party: 'buyer' as Party, left: segment.box.x, belowOnly: true })),
    ];
    for (const start of starts) {
      const page = layout.pages.find((candidate) => candidate.pageNumber === start.segment.pageNumber);
      if (!page) continue;
      const left = start.left - 0.03;
      const right = start.left + Math.min(0.45, Math.max(0.3, start.segment.box.width));
      let lastRow = Math.min(page.rows.length - 1, start.segment.rowIndex + 8);
      // An address block is compact: a gap of a few blank lines ends it.
      for (let rowIndex = start.segment.rowIndex + 1; rowIndex <= lastRow; rowIndex += 1) {
        const row = page.rows[rowIndex];
        const previous = page.rows[rowIndex - 1];
        if (row && previous && row.top - previous.bottom > page.typicalLineHeight * 2.5) {
          lastRow = rowIndex - 1;
          break;
        }
      }
      for (const other of starts) {
        if (other === start || other.segment.pageNumber !== start.segment.pageNumber) continue;
        if (other.segment.rowIndex > start.segment.rowIndex && other.left >= left && other.left < right) {
          lastRow = Math.min(lastRow, other.segment.rowIndex - 1);
        }
      }
      // The sender line itself belongs to the seller; the window block starts below it.
      const firstRow = start.segment.rowIndex + (start.belowOnly ? 1 : 0);
      this.blocks.push({ party: start.party, pageNumber: page.pageNumber, firstRow, lastRow, left, right });
    }
  }

  partyOf(segmentId: number): Party | undefined {
    const segment = this.layout.segments[segmentId];
    if (!segment) return undefined;
    const block = this.blocks.find(
      (candidate) =>
        candidate.pageNumber === segment.pageNumber &&
        segment.rowIndex >= candidate.firstRow &&
        segment.rowIndex <= candidate.lastRow &&
        segment.box.x >= candidate.left &&
        segment.box.x < candidate.right,
    );
    return block?.party;
  }
}

const POSTCODE = /(?<![\d])(?:[A-Z]{1,2}-)?\d{4,5}(?![\d])|\b\d{2}-\d{3}\b|\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b|\b\d{4} ?[A-Z]{2}\b/;

/**
 * The small sender line printed above an envelope window ("Acme GmbH | Europa-Allee 1 | 60486
 * Frankfurt"): a name, separators and a postcode near the top of the first page.
 */
export function findReturnAddressSegments(layout: DocumentLayout): LayoutSegment[] {
  const firstPage = layout.pages[0];
  if (!firstPage || !layout.hasGeometry) return [];
  return firstPage.rows
    .filter((row) => row.top < 0.35)
    .flatMap((row) => row.segments)
    .filter((segment) => {
      const separators = segment.text.match(/\s[|●•·–-]\s|[|●•·]/g) ?? [];
      return separators.length >= 2 && POSTCODE.test(segment.text) && segment.box.height <= firstPage.typicalLineHeight * 1.05 && /^\D/.test(segment.text.trim());
    });
}

/**
 * What a finder reads in a segment's text, found once per segment of a layout: the country evidence,
 * the implied currency and the candidates (seller and buyer) each look at every segment again.
 */
function foundOncePerSegment<Found>(find: (text: string) => readonly Found[]): (layout: DocumentLayout, segment: LayoutSegment) => readonly Found[] {
  const byLayout = new WeakMap<DocumentLayout, (readonly Found[])[]>();
  return (layout, segment) => {
    let byId = byLayout.get(layout);
    if (!byId) {
      byId = [];
      byLayout.set(layout, byId);
    }
    return (byId[segment.id] ??= Object.freeze(find(segment.text)));
  };
}

const ibansIn = foundOncePerSegment<FoundIban>(findIbans);
const vatIdsIn = foundOncePerSegment<FoundVatId>(findVatIds);

/** The country a document comes from, when its evidence clearly names one (values/country.ts). */
export interface DocumentCountry {
  country: string;
  weight: number;
  /** The segment of the first mention, where an implied currency is reported. */
  segment: LayoutSegment;
}

/** Country names, legal forms, tax ids, phone prefixes, and the countries of IBANs and VAT ids. */
export function documentCountry(layout: DocumentLayout): DocumentCountry | undefined {
  const mentions: (CountryMention & { segment: LayoutSegment })[] = [];
  for (const segment of layout.segments) {
    for (const mention of findCountryMentions(segment.text)) mentions.push({ ...mention, segment });
    const country = ibansIn(layout, segment)[0]?.iban.slice(0, 2) ?? vatIdsIn(layout, segment)[0]?.vatId.slice(0, 2);
    if (country) mentions.push({ countries: [country === 'EL' ? 'GR' : country], weight: 1.5, index: 0, length: segment.text.length, evidence: 'IBAN or VAT id', segment });
  }
  const ranked = [...weighCountries(mentions).entries()].sort((left, right) => right[1] - left[1]);
  const [best, runnerUp] = ranked;
  // One clear country: enough weight, and well ahead of any other named on the page.
  if (!best || best[1] < 0.8 || (runnerUp && runnerUp[1] > best[1] * 0.6)) return undefined;
  const segment = mentions.find((mention) => mention.countries.includes(best[0]))?.segment;
  return segment ? { country: best[0], weight: best[1], segment } : undefined;
}

/** Currency candidates from every code and sign in the document; amounts' own signs count more. */
export function currencyCandidates(layout: DocumentLayout, language: string | undefined, country?: DocumentCountry): FieldCandidate[] {
  const context = { ...(language ? { language } : {}), ...(country ? { country: country.country } : {}) };
  const weights = new Map<string, { weight: number; count: number; first: { segment: LayoutSegment; index: number; length: number } }>();
  for (const segment of layout.segments) {
    const attached = new Set(findAmounts(segment.text, context).flatMap((amount) => (amount.currency ? [amount.index] : [])));
    for (const mention of findCurrencyMentions(segment.text, context)) {
      const nearAmount = [...attached].some((index) => Math.abs(index - mention.index) <= 3);
      // A lone sign away from any amount, foreign to the country the page names, is more often OCR
      // noise ("&" read as "£" in a business name) than the currency: the country decides instead.
      const isSign = !/\p{L}/u.test(segment.text.slice(mention.index, mention.index + mention.length));
      if (isSign && !nearAmount && country && CURRENCY_OF_COUNTRY[country.country] !== undefined && CURRENCY_OF_COUNTRY[country.country] !== mention.code) continue;
      const weight = (mention.unambiguous ? 1 : 0.6) + (nearAmount ? 0.5 : 0);
      const entry = weights.get(mention.code);
      if (entry) {
        entry.weight += weight;
        entry.count += 1;
      } else {
        weights.set(mention.code, { weight, count: 1, first: { segment, index: mention.index, length: mention.length } });
      }
    }
  }
  // On a photo or scan of a page that clearly names its country, a foreign currency read once is a
  // misreading ("RM" as "zł", "KR600" a product code, "GST ID" as "GST AUD"), not the currency: the
  // country's own is left to decide. A foreign currency really used is printed on more than one line.
  const ownCurrency = country && country.weight >= CLEAR_COUNTRY_WEIGHT ? CURRENCY_OF_COUNTRY[country.country] : undefined;
  if (ownCurrency) {
    for (const [code, entry] of weights) {
      const onOcrPage = layout.pages.find((page) => page.pageNumber === entry.first.segment.pageNumber)?.source === 'ocr';
      if (code !== ownCurrency && entry.count === 1 && onOcrPage) weights.delete(code);
    }
  }
  const total = [...weights.values()].reduce((sum, entry) => sum + entry.weight, 0);
  return [...weights.entries()].map(([code, entry]) => ({
    fieldName: 'currency',
    value: code,
    score: 0.45 + 0.35 * (entry.weight / total) + 0.15 * Math.min(1, entry.count / 4),
    pageNumber: entry.first.segment.pageNumber,
    box: boxOfRange(entry.first.segment, entry.first.index, entry.first.index + entry.first.length),
    segmentId: entry.first.segment.id,
    evidence: `${entry.count} currency mention(s)`,
  }));
}

/** Country evidence worth two clear signs (a legal form and a region, a tax id and a phone prefix). */
const CLEAR_COUNTRY_WEIGHT = 2;

// Where no currency is printed, the country of the seller's IBAN or VAT id, other country evidence,
// or the language implies it, in that order and always below any printed sign.
const LANGUAGE_CURRENCIES: Record<string, string> = { de: 'EUR', fr: 'EUR', nl: 'EUR', es: 'EUR', it: 'EUR', pl: 'PLN' };

/** A weak currency guess from country codes in IBANs and VAT ids, then other country evidence, then the language. */
export function impliedCurrencyCandidates(layout: DocumentLayout, language: string | undefined, country?: DocumentCountry): FieldCandidate[] {
  for (const segment of layout.segments) {
    const ibanOrVatCountry = ibansIn(layout, segment)[0]?.iban.slice(0, 2) ?? vatIdsIn(layout, segment)[0]?.vatId.slice(0, 2);
    if (!ibanOrVatCountry) continue;
    const code = CURRENCY_OF_COUNTRY[ibanOrVatCountry === 'EL' ? 'GR' : ibanOrVatCountry];
    if (code) return [{ fieldName: 'currency', value: code, score: 0.4, pageNumber: segment.pageNumber, box: segment.box, segmentId: segment.id, evidence: `country ${ibanOrVatCountry} of an IBAN or VAT id` }];
  }
  const countryCurrency = country ? CURRENCY_OF_COUNTRY[country.country] : undefined;
  if (country && countryCurrency) {
    const { segment } = country;
    const score = 0.34 + 0.06 * Math.min(1, country.weight / 4);
    return [{ fieldName: 'currency', value: countryCurrency, score, pageNumber: segment.pageNumber, box: segment.box, segmentId: segment.id, evidence: `country ${country.country} named by the page` }];
  }
  const first = layout.segments[0];
  const code = language ? LANGUAGE_CURRENCIES[language] : undefined;
  return code && first ? [{ fieldName: 'currency', value: code, score: 0.32, pageNumber: first.pageNumber, box: first.box, segmentId: first.id, evidence: `document language ${language}` }] : [];
}

/** Valid IBANs anywhere; an invoice's IBAN is nearly always the seller's account for payment. */
export function ibanCandidates(layout: DocumentLayout, fieldName: string, parties: PartyBlocks): FieldCandidate[] {
  return layout.segments.flatMap((segment) =>
    ibansIn(layout, segment).map((found) => ({
      fieldName,
      value: found.iban,
      score: parties.partyOf(segment.id) === 'buyer' ? 0.3 : 0.7,
      pageNumber: segment.pageNumber,
      box: boxOfRange(segment, found.index, found.index + found.length),
      segmentId: segment.id,
      evidence: 'valid IBAN in text',
    })),
  );
}

/** Prefixed VAT ids anywhere, given to the party whose block they sit in (seller by default). */
export function vatIdCandidates(layout: DocumentLayout, fieldName: string, party: Party, parties: PartyBlocks): FieldCandidate[] {
  return layout.segments.flatMap((segment) =>
    vatIdsIn(layout, segment).flatMap((found) => {
      const owner = parties.partyOf(segment.id) ?? 'seller';
      if (owner !== party) return [];
      return [{
        fieldName,
        value: found.vatId,
        score: party === 'seller' ? 0.5 : 0.45,
        pageNumber: segment.pageNumber,
        box: boxOfRange(segment, found.index, found.index + found.length),
        segmentId: segment.id,
        evidence: 'VAT id in text',
      }];
    }),
  );
}

/** The company names of each segment, its legal form restored (read for the seller and again for the buyer). */
const companyNamesIn = foundOncePerSegment<FoundCompanyName>((text) => findCompanyNames(withLegalFormRestored(text)));

/** Company names found by their legal form, scored by where a seller's name is usually printed. */
export function companyNameCandidates(layout: DocumentLayout, fieldName: string, party: Party, parties: PartyBlocks): FieldCandidate[] {
  const found: FieldCandidate[] = [];
  const occurrences = new Map<string, number>();
  // A name printed in the buyer's block is the buyer's wherever else it appears (a ship-to block, a
  // footer line): it is not the seller's.
  const buyerNames = new Set<string>();
  for (const segment of layout.segments) {
    for (const company of companyNamesIn(layout, segment)) {
      const key = normalizeForMatching(company.name);
      occurrences.set(key, (occurrences.get(key) ?? 0) + 1);
      if (parties.partyOf(segment.id) === 'buyer') buyerNames.add(key);
    }
  }
  for (const page of layout.pages) {
    for (const row of page.rows) {
      for (const segment of row.segments) {
        // OCR misreads the legal form that ends a letterhead name ("SDN 3HD") as often as a till's.
        for (const company of companyNamesIn(layout, segment)) {
          const owner = parties.partyOf(segment.id);
          let score: number;
          if (party === 'seller') {
            score = page.pageNumber === 1 && row.top < 0.3 ? 0.62 : row.top > 0.7 ? 0.55 : 0.42;
            if (page.pageNumber > 1) score *= 0.9;
            if (owner === 'buyer' || (owner !== 'seller' && buyerNames.has(normalizeForMatching(company.name)))) score *= 0.3;
            if (owner === 'seller') score *= 1.3;
            // The envelope window (DIN 5008 and similar: left half, 4-9 cm from the top) holds the
            // recipient; a company heading an address block there is more likely the buyer.
            if (!owner && page.pageNumber === 1 && inEnvelopeWindow(segment) && startsAddressBlock(page, row.index, segment)) score *= 0.7;
          } else {
            if (owner !== 'buyer') continue;
            score = 0.55;
          }
          if (/copyright|©|\(c\)/i.test(segment.text)) score *= 0.4;
          if (segment.box.height > page.typicalLineHeight * 1.3) score *= 1.12;
          score += 0.08 * Math.min(2, (occurrences.get(normalizeForMatching(company.name)) ?? 1) - 1);
          found.push({
            fieldName,
            value: company.name,
            score,
            pageNumber: page.pageNumber,
            box: boxOfRange(segment, company.index, company.index + company.length),
            segmentId: segment.id,
            evidence: 'company legal form',
          });
        }
      }
    }
  }
  return found;
}

function inEnvelopeWindow(segment: LayoutSegment): boolean {
  return segment.box.x < 0.45 && segment.box.y >= 0.12 && segment.box.y <= 0.32;
}

/** The next line in the segment's column (within three rows) carries digits: a street or postcode. */
function startsAddressBlock(page: LayoutPage, rowIndex: number, segment: LayoutSegment): boolean {
  const below = page.rows
    .slice(rowIndex + 1, rowIndex + 4)
    .flatMap((row) => row.segments)
    .find((candidate) => Math.abs(candidate.box.x - segment.box.x) < 0.02);
  return below !== undefined && /\d/.test(below.text) && /\p{L}{3}/u.test(below.text);
}

/**
 * Whether a street line stands right above the segment in its column: then the segment is a town or
 * district inside an address block ("JALAN TEMENGGUNG 23/9" over "BANDAR MAHKOTA CHERAS" over the
 * postcode), not the name that heads one.
 */
function continuesAnAddress(page: LayoutPage, rowIndex: number, segment: LayoutSegment): boolean {
  const above = page.rows
    .slice(Math.max(0, rowIndex - 2), rowIndex)
    .reverse()
    .flatMap((candidate) => candidate.segments)
    .find((candidate) => inSameColumn(candidate, segment));
  return above !== undefined && /\d/.test(above.text) && ADDRESS_WORDS.test(above.text);
}

/** Flush left or centred on each other, as letterheads and tills print the lines of a block. */
function inSameColumn(candidate: LayoutSegment, segment: LayoutSegment): boolean {
  const centre = segment.box.x + segment.box.width / 2;
  return Math.abs(candidate.box.x - segment.box.x) < 0.02 || Math.abs(candidate.box.x + candidate.box.width / 2 - centre) < 0.02;
}

/**
 * The letterhead: a prominent short line at the top of the first page, or the first line of an
 * address block there (a name line followed by a street or postcode line in the same column).
 */
export function letterheadCandidates(layout: DocumentLayout, fieldName: string, titleWords: Set<string>, parties: PartyBlocks, labelledSegments: Set<number>): FieldCandidate[] {
  const page = layout.pages[0];
  if (!page || !layout.hasGeometry) return [];
  const found: FieldCandidate[] = [];
  const topRows = page.rows.filter((row) => row.top < 0.2);
  for (const row of topRows) {
    for (const segment of row.segments) {
      if (parties.partyOf(segment.id) === 'buyer') continue;
      const words = segment.text.split(/\s+/).filter((word) => !titleWords.has(normalizeForMatching(word).replace(/[.:]$/, '')));
      if (looksLikeKeyAndValue(segment.text) || labelledSegments.has(segment.id)) continue;
      // OCR of spaced-out title letters ("F ACTU U R.") is not a name.
      const tokens = segment.text.split(/\s+/).filter(Boolean);
      if (tokens.filter((token) => token.replace(/[^\p{L}]/gu, '').length <= 1).length > tokens.length * 0.3) continue;
      const text = cleanPartyName(words.join(' '));
      if (!text || /\d/.test(text) || !/\p{L}{4}/u.test(text) || text.split(/\s+/).length > 5 || hasLegalForm(text)) continue;
      const prominent = segment.box.height >= page.typicalLineHeight * 1.25;
      // The next line in the same column: a street, postcode, e-mail or phone line under a name.
      const below = page.rows
        .slice(row.index + 1, row.index + 4)
        .flatMap((candidate) => candidate.segments)
        .find((candidate) => inSameColumn(candidate, segment));
      const addressBelow = below !== undefined && /\d/.test(below.text) && /\p{L}{3}/u.test(below.text);
      if (!prominent && (!addressBelow || continuesAnAddress(page, row.index, segment))) continue;
      found.push({
        fieldName,
        value: text,
        score: (prominent ? 0.5 : 0.4) * (row.top < 0.1 ? 1 : 0.9),
        pageNumber: page.pageNumber,
        box: segment.box,
        segmentId: segment.id,
        evidence: prominent ? 'prominent letterhead line' : 'first line of a top address block',
      });
    }
  }
  return found;
}

// A till receipt names its seller in its first lines, above the address; the lines around it are an
// address, registration and tax numbers, phone numbers, opening hours, the title and OCR noise.
const ADDRESS_WORDS = /(?<![\p{L}])(?:jalan|jln|lorong|persiaran|taman|lot|no\.?|blok|block|bandar|seksyen|kawasan|street|st\.|road|rd\.?|avenue|ave\.?|lane|drive|floor|flr|level|suite|unit|building|plaza|strasse|straße|str\.|rue|via|calle|ul\.|p\.?o\.? box)(?![\p{L}])/iu;
/** Words of an address ("JALAN", "Street", "Lot"), so a number in front of them is a house number. */
export function mentionsAddress(text: string): boolean {
  return ADDRESS_WORDS.test(text);
}
const NOT_A_NAME_WORDS = /(?<![\p{L}])(?:tel|telephone|phone|fax|mobile|whatsapps?|e-?mail|www|http|gst|sst|vat|tax|reg|regn|registration|co\.?\s?(?:reg|no)|company\s+(?:reg|no)|abn|gstin|uen|invoice|receipt|bill|cashier|operator|counter|terminal|date|time|table(?=\s*\S)|hours|welcome|thank|open|daily|mon|sun|order|queue)(?![\p{L}])/iu;

/**
 * The Malaysian and Singaporean legal forms as OCR misreads them at the end of a name ("SDN 3HD",
 * "SUN BHO", "Shn Bhd", "5/B"): a closed vocabulary, so the printed form can be restored.
 */
const MISREAD_SDN_BHD = /(?<![\p{L}\d])[S5][DUOHN][NH]\.?\s?[B83ED][HN][DO0]\.?$/iu;
const MISREAD_S_B = /(?<![\p{L}\d])[S5]\s?\/\s?[B80ED]$/u;
/** "ENW Hardware Centre (M) Sdn.": a Sendirian is always Berhad; the last word was lost at the edge. */
const SDN_WITHOUT_BHD = /(?<![\p{L}\d])(SDN|Sdn)\.?$/u;
/**
 * "RAPID RAIL SC: BHD", "MOTOR SN. BHD.": a Berhad read right after a word of an S and one more letter
 * is a Sendirian Berhad with a letter of SDN lost; no other word so short stands before BHD.
 */
const SDN_LETTER_LOST = /(?<![\p{L}\d])[S5]\p{L}[.:,]?\s?(?=(?:BHD|Bhd)\.?$)/u;

/** A name with a legal form, also one OCR misread ("SON BHD"): a business, printed as such. */
export function namesBusiness(text: string): boolean {
  return hasLegalForm(withLegalFormRestored(text));
}

export function withLegalFormRestored(name: string): string {
  const upperCase = name === name.toUpperCase();
  // A form printed right ("SDN. BHD.") stays as printed; only a misread one is replaced.
  if (MISREAD_SDN_BHD.test(name)) return name.replace(MISREAD_SDN_BHD, (form: string) => (/^sdn\.?\s?bhd\.?$/iu.test(form) ? form : upperCase ? 'SDN BHD' : 'Sdn Bhd'));
  if (SDN_WITHOUT_BHD.test(name)) return name.replace(SDN_WITHOUT_BHD, (sdn: string) => (sdn.startsWith('SDN') ? 'SDN BHD' : 'Sdn Bhd'));
  // The dot after the short word is the dot printed after SDN ("SN. BHD." for "SDN. BHD.").
  if (SDN_LETTER_LOST.test(name)) return name.replace(SDN_LETTER_LOST, (word: string) => `${/BHD\.?$/u.test(name) ? 'SDN' : 'Sdn'}${/\.\s?$/u.test(word) ? '.' : ''} `);
  return name.replace(MISREAD_S_B, 'S/B');
}

/** A chain's store number after its name ("WALGREENS #4521", "Store #12"): not part of the name. */
const STORE_NUMBER_AT_END = /\s+(?:(?:store|shop|branch|outlet)\s*)?#\s?\d{1,6}\s*$/iu;
/**
 * A till's or receipt's running number printed before the name on its line ("#000002 BAIFU (M) Sdn
 * Bhd"): three digits or more, so a slogan's rank ("#1 PIZZA IN TOWN") is not taken for one.
 */
const NUMBER_AT_START = /^\s*#\s?\d{3,8}\s+(?=\p{L})/u;

/** A head line cleaned into a business name, or undefined when it reads as something else. */
function receiptHeadName(text: string): string | undefined {
  // The town line of an address ("Nashville, TN 37203", "Toronto ON M5X 1A9") names no business.
  if (namesPostalTown(text)) return undefined;
  const cleaned = text
    // A chain's store number after its name: "WALGREENS #4521", "TIM HORTONS #2231".
    .replace(STORE_NUMBER_AT_END, '')
    .replace(NUMBER_AT_START, '')
    // A registration number in parentheses after the name: "AEON CO. (M) BHD (126926-H)".
    .replace(/\s*\(\s*[\w\s.:-]*\d{4,}[\w\s.:-]*\)\s*$/u, '')
    // ... or with its brackets misread or missing, or a comma after it: "99 SPEED MART S/B 1519537-X}", "(417940-M),".
    .replace(REGISTRATION_NUMBER_AT_END, '')
    .replace(/^[^\p{L}\d]+|[^\p{L}\d).]+$/gu, '')
    .replace(/\s+[.'’]$/u, '')
    .trim();
  const name = withoutMarkAfterLegalForm(withLegalFormRestored(cleaned));
  const letters = name.replace(/[^\p{L}]/gu, '');
  if (letters.length < 4 || letters.length < name.replace(/\s/g, '').length * 0.6) return undefined;
  // Handwriting and OCR noise come out in lower case; printed business names are capitalised.
  if (!/\p{Lu}/u.test(name) || /^\p{Ll}/u.test(name)) return undefined;
  if (ADDRESS_WORDS.test(name) || NOT_A_NAME_WORDS.test(name) || /\d{4,}/.test(name) || /@|:/.test(name)) return undefined;
  // OCR of a logo or of noise gives runs of single characters; "B & BEST" is a name.
  const tokens = name.split(/\s+/).filter((token) => token !== '&');
  // ... or letters read as the digits they look like inside a lowercase word ("S1gnaty" for a script
  // logo: l or i read as 1, o as 0); a name's digits are words of their own, lead one ("99 SPEED
  // MART", "7-ELEVEN") or stand for a word ("Car2go", "Fit4less").
  if (tokens.some((token) => /\p{L}[01]\p{Ll}/u.test(token))) return undefined;
  if (tokens.filter((token) => token.replace(/[^\p{L}\d]/gu, '').length <= 1).length > tokens.length * 0.4) return undefined;
  return name;
}

/** "BEMED (SP) SDN. BHD. Ÿ": a speck read as a letter or two after the legal form that ends the name. */
function withoutMarkAfterLegalForm(name: string): string {
  const lastForm = legalFormRanges(name).at(-1);
  if (!lastForm) return name;
  const rest = name.slice(lastForm.end).trim();
  return rest.length > 0 && rest.length <= 2 && !/[\d(]/u.test(rest) ? name.slice(0, lastForm.end).trim() : name;
}

function segmentConfidence(segment: LayoutSegment): number {
  const confidences = segment.words.flatMap((word) => (word.confidence === undefined ? [] : [word.confidence]));
  return confidences.length === 0 ? 1 : confidences.reduce((sum, confidence) => sum + confidence, 0) / confidences.length;
}

/** Below this OCR confidence a word of a name may hold a misread letter. */
const DOUBTED_WORD_CONFIDENCE = 0.88;
const DOUBTED_NAME_FACTOR = 0.94;

/** A line none of whose words OCR read more surely than this is noise, unless nothing better is read. */
const NOISE_WORD_CONFIDENCE = 0.6;

/** OCR's confidences in the segment's words of letters (1 alone where it has none, or was not OCR). */
function wordOfLettersConfidences(segment: LayoutSegment): number[] {
  const confidences = segment.words.flatMap((word) => (word.confidence === undefined || !/\p{L}{2}/u.test(word.text) ? [] : [word.confidence]));
  return confidences.length === 0 ? [1] : confidences;
}

function strongestWordConfidence(segment: LayoutSegment): number {
  return Math.max(...wordOfLettersConfidences(segment));
}

function weakestWordConfidence(segment: LayoutSegment): number {
  return Math.min(...wordOfLettersConfidences(segment));
}

/**
 * The seller of a till receipt: the first name-like line at the head of the first page, joined with
 * the line right under it when that one ends the name with a legal form ("BECON STATIONER" over
 * "Becon Enterprise Sdn Bhd"). Only for types whose seller heads the document (receipts).
 */
export function receiptHeadCandidates(layout: DocumentLayout, fieldName: string): FieldCandidate[] {
  const page = layout.pages[0];
  if (!page || !layout.hasGeometry) return [];
  const headRows = page.rows.filter((row) => row.top < 0.4).slice(0, 10);
  // A speck read as a word is far smaller than the print around it ("Neve", 0.003 of the page high).
  const headSegments = headRows.flatMap((row) => row.segments).filter((segment) => segmentConfidence(segment) >= 0.5 && segment.box.height >= page.typicalLineHeight * SPECK_HEIGHT);
  let passedNoise = false;
  for (const [position, segment] of headSegments.entries()) {
    // The name heads the receipt: once a "Key: value" line has come (a guest, a date), what
    // follows is a section of the document, not its seller. A colon OCR read into the legal form
    // ("RAPID RAIL SC: BHD") makes no key.
    if (looksLikeKeyAndValue(withLegalFormRestored(segment.text))) return [];
    const name = receiptHeadName(segment.text);
    if (!name) continue;
    // OCR of a logo or a smudge can spell a few capitals ("ENT m Li", every word doubted); over a
    // legal name read surely, it is not the name. What it hid may have been part of the name (a
    // brand over the legal name), so the name under it is not certain.
    if (strongestWordConfidence(segment) < NOISE_WORD_CONFIDENCE && headSegments.slice(position + 1).some((later) => namesBusiness(later.text) && weakestWordConfidence(later) >= DOUBTED_WORD_CONFIDENCE)) {
      passedNoise = true;
      continue;
    }
    const continuedBy = CONTINUED_BY_NEXT_LINE.exec(segment.text)?.[0].trim();
    const { name: value, segment: named, brandJoined } = hasLegalForm(name)
      ? { name, segment, brandJoined: false }
      : continuedBy
        ? withWrappedLines(`${name.replace(CONTINUED_BY_NEXT_LINE, '').trim()} ${continuedBy}`, segment, headSegments.slice(position + 1), page.typicalLineHeight, true)
        : withWrappedLines(name, segment, headSegments.slice(position + 1), page.typicalLineHeight);
    // One letter misread ("LEE WAK" for "LEE WAH") leaves the line's mean confidence high; the word
    // OCR doubted most keeps the name below high confidence.
    const doubted = weakestWordConfidence(named) < DOUBTED_WORD_CONFIDENCE ? DOUBTED_NAME_FACTOR : 1;
    const score = (0.62 + (hasLegalForm(value) ? 0.12 : 0) + 0.1 * Math.min(1, segmentConfidence(named))) * doubted;
    const respelt = withTradeWordsRespelt(withBarsReadAsLetters(withDigitsReadAsLetters(value)));
    if (respelt !== value) {
      return [{ fieldName, value: respelt, score, pageNumber: page.pageNumber, box: named.box, segmentId: named.id, evidence: 'business name at the head of a receipt, a letter OCR misread restored', confidenceCeiling: LEGAL_NAME_UNDER_BRAND_CONFIDENCE }];
    }
    if (named === segment && !brandJoined) {
      const found = { fieldName, value, score, pageNumber: page.pageNumber, box: named.box, segmentId: named.id };
      return [passedNoise ? { ...found, evidence: 'business name at the head of a receipt, under print read as noise', confidenceCeiling: LEGAL_NAME_UNDER_BRAND_CONFIDENCE } : { ...found, evidence: 'business name at the head of a receipt' }];
    }
    // Bookkeeping conventions differ on whether the brand goes with the legal name: never certain.
    const evidence = brandJoined ? 'brand naming its trade with the legal name under it, at the head of a receipt' : 'legal name under a brand line at the head of a receipt';
    return [{ fieldName, value, score, pageNumber: page.pageNumber, box: named.box, segmentId: named.id, evidence, confidenceCeiling: LEGAL_NAME_UNDER_BRAND_CONFIDENCE }];
  }
  return [];
}

/**
 * "URBAN 1DEA SDN BHD": inside a capitalised word, OCR reads I as 1 and O as 0. A name's own digits
 * are words of their own ("99 SPEED MART") or lead a short one ("7-ELEVEN"), never inside letters.
 */
function withDigitsReadAsLetters(name: string): string {
  return name
    .replace(/(?<![\p{L}\d])[\p{Lu}10]{3,}(?![\p{L}\d])/gu, (word) => {
      const letters = word.replace(/[10]/g, '');
      if (letters.length < word.length - 1 || letters.length < 3) return word;
      return word.replace(/1/g, 'I').replace(/0/g, 'O');
    })
    // ... and between the initials of an abbreviation: "MR. D.1.Y." for "MR. D.I.Y.".
    .replace(/(?<=(?<![\p{L}\d])\p{Lu}\.)1(?=\.\p{Lu}\.)/gu, 'I');
}

/**
 * "BHPetro] Palekbang", "JIAWE| HOUSE": OCR reads a thin l or I as a bar or a closing bracket that
 * opens nothing. Attached to the letters of a word, it is the letter: l after lower case, I after capitals.
 */
function withBarsReadAsLetters(name: string): string {
  if (!/\p{L}[|\]]/u.test(name) || name.includes('[')) return name;
  return name.replace(/(?<=\p{Ll})[|\]](?=[\s,.]|$)/gu, 'l').replace(/(?<=\p{Lu})[|\]](?=[\s,.]|$|\p{Lu})/gu, 'I');
}

/**
 * The trades a shop's own name says it is in ("LEMON TREE RESTAURANT", "BECON STATIONER"): a brand
 * line naming one is a trading name (see withWrappedLines), not a slogan.
 */
const SHOP_TRADES = [
  'restaurant', 'restoran', 'cafe', 'kitchen', 'bakery', 'bakeries', 'stationer', 'stationers', 'stationery', 'hardware', 'electrical',
  'trading', 'enterprise', 'store', 'mart', 'pharmacy', 'bookstore', 'florist', 'motor',
];
const TRADE_NAME = new RegExp(`(?<![\\p{L}])(?:${SHOP_TRADES.join('|')})(?![\\p{L}])`, 'iu');

/**
 * Words of the trade that business names are made of, the shops' trades and those of other firms. OCR
 * misreads one letter of them on a till's head ("ENTFRPRISE", "STAIIONERY"); a word of eight letters or
 * more one letter from one of them, and the same length, is that word. Both spellings of stationery
 * are printed on real shop names.
 */
const TRADE_WORDS = [
  ...new Set([
    ...SHOP_TRADES,
    'enterprises', 'stationary', 'marketing', 'services', 'industries', 'industry', 'electronics', 'supermarket', 'hypermarket', 'minimarket',
    'holdings', 'corporation', 'international', 'furniture', 'machinery', 'engineering', 'construction', 'management', 'technology',
    'equipment', 'printing', 'catering', 'confectionery', 'automobile', 'accessories', 'department', 'company',
  ]),
].filter((word) => word.length >= 8);
const TRADE_WORD_SET = new Set(TRADE_WORDS);

function oneLetterApart(word: string, other: string): boolean {
  if (word.length !== other.length) return false;
  let differences = 0;
  for (let index = 0; index < word.length && differences <= 1; index += 1) if (word[index] !== other[index]) differences += 1;
  return differences === 1;
}

function withTradeWordsRespelt(name: string): string {
  return name.replace(/\p{L}{8,}/gu, (word) => {
    const lower = word.toLowerCase();
    if (TRADE_WORD_SET.has(lower)) return word;
    const matches = TRADE_WORDS.filter((trade) => oneLetterApart(lower, trade));
    if (matches.length !== 1) return word;
    const trade = matches[0]!;
    return word === word.toUpperCase() ? trade.toUpperCase() : word[0] === word[0]?.toUpperCase() ? `${trade[0]!.toUpperCase()}${trade.slice(1)}` : trade;
  });
}

/** Below this share of the typical line height a "line" is a speck or a rule, not print. */
const SPECK_HEIGHT = 0.5;

/** A legal name taken without the brand line over it (see withWrappedLines). */
const LEGAL_NAME_UNDER_BRAND_CONFIDENCE = 0.85;

/** Lines a business name wraps over at most, the legal form ending the last ("AIK HUAT HARDWARE / ENTERPRISE (SETIA / ALAM) SDN BHD"). */
const MAX_NAME_CONTINUATION_LINES = 2;

/**
 * The name continued by the lines right under it to a legal form: a long legal name wrapped by the
 * narrow till paper is joined ("AIK HUAT HARDWARE / ENTERPRISE (SETIA / ALAM) SDN BHD"); a brand or
 * outlet line printed as a run of its own over the legal name gives way to the legal name, the
 * seller a user books ("BECON STATIONER / Becon Enterprise Sdn Bhd"). Marks and specks between the
 * lines (OCR of a ruler or a logo edge) are passed over.
 */
function withWrappedLines(name: string, givenFirst: LayoutSegment, givenFollowing: LayoutSegment[], lineHeight: number, continued = false): { name: string; segment: LayoutSegment; brandJoined: boolean } {
  const { line: first, text, rest: following } = withRestOfItsLine(givenFirst, name, givenFollowing);
  const parts = [text];
  const segments = [first];
  let previous = first;
  let joinsAbove = continued;
  for (const segment of following) {
    if (!/\p{L}/u.test(segment.text)) continue;
    if (segment.box.y - (previous.box.y + previous.box.height) >= lineHeight * 1.2 || parts.length > MAX_NAME_CONTINUATION_LINES) break;
    // A continuation holds words and the parentheses of a branch name, no address or number lines.
    // OCR reads an ampersand as 8 or 9; one opening a line before a word is the ampersand ("9 TEA LEAF (M) SDN. BHD.").
    const continuation = withLegalFormRestored(segment.text.replace(REGISTRATION_NUMBER_AT_END, '').trim()).replace(/^[89](?=\s+\p{Lu})/u, '&');
    if (!/^[\p{L}&().,'’/\s-]+$/u.test(continuation) || ADDRESS_WORDS.test(continuation) || NOT_A_NAME_WORDS.test(continuation)) {
      // A company number on its own line closes the name it registers: the lines of words above it
      // are that name, wrapped ("RESTAURANT JIAWEI" over "JIAWEI HOUSE" over "002693074-K").
      if (parts.length >= 2 && isRegistrationNumberAlone(segment.text)) return { name: parts.join(' '), segment: first, brandJoined: false };
      break;
    }
    parts.push(continuation);
    segments.push(segment);
    // A line that opens with "&" goes on with the name above it ("THE COFFEE BEAN" over "& TEA LEAF (M) SDN. BHD.").
    if (continuation.startsWith('&')) joinsAbove = true;
    if (hasLegalForm(continuation)) {
      const legalName = parts.slice(1).join(' ');
      const second = segments[1]!;
      // A brand that names its trade ("LEMON TREE RESTAURANT", "BECON STATIONER") is the trading name
      // the legal name under it goes with, in whatever print: the seller is both, as bookkeepers key
      // it. A slogan or a brand of no trade ("Sarang Hae Yo") stays apart, as does an operator's line.
      const tradeBrand = TRADE_NAME.test(text) && !NAMES_OPERATOR.test(second.text) && !repeatsWordsOf(legalName, text);
      const ownLine = !tradeBrand && (NAMES_OPERATOR.test(second.text) || !wrapsInto(first, second, segments.slice(1)) || printedLarger(first, second));
      // A legal form alone on its line ("SDN BHD (139386-X)") ends the name above it, whatever the widths.
      if (!joinsAbove && !isLegalFormAlone(legalName) && ownLine && hasBalancedParentheses(legalName)) return { name: legalName, segment: second, brandJoined: false };
      return { name: parts.join(' '), segment: first, brandJoined: tradeBrand && !joinsAbove && !isLegalFormAlone(legalName) };
    }
    // "HOME MASTER HARDWARE &" over "ELECTRICAL": the name goes on, legal form or not.
    if (joinsAbove && parts.length === 2) return { name: parts.join(' '), segment: first, brandJoined: false };
    previous = segment;
  }
  return { name: text, segment: first, brandJoined: false };
}

/**
 * A head line the reader split at a wide gap between its words ("WESTERN      EASTERN" over "STATIONERY
 * SDN. BHD"): the words after the gap on the same line are the same line of the name, not a line of
 * their own, so the legal-name test below sees one line above the legal form, not a brand line beside it.
 */
function withRestOfItsLine(first: LayoutSegment, name: string, following: LayoutSegment[]): { line: LayoutSegment; text: string; rest: LayoutSegment[] } {
  let line = first;
  let text = name;
  let taken = 0;
  for (const segment of following) {
    // A run that holds the legal form is the legal name beside an outlet or brand ("AL BAIK   PUTRA JAYA SDN BHD"), not more of this line.
    if (segment.rowIndex !== first.rowIndex || segment.pageNumber !== first.pageNumber || !/^[\p{Lu}&().,'’/\s-]+$/u.test(segment.text.trim()) || hasLegalForm(segment.text)) break;
    text = `${text} ${segment.text.trim()}`;
    line = { ...line, text: `${line.text} ${segment.text}`, words: [...line.words, ...segment.words], box: unitePlacements([line.box, segment.box]) };
    taken += 1;
  }
  return { line, text, rest: following.slice(taken) };
}

/** "Owner by Castle Blue S/B", "Operated by ...": a line that names the company behind a brand starts afresh, it continues no name. */
const NAMES_OPERATOR = /^\W*(?:own(?:ed|er)|operated|managed|run)\s+by\b/iu;

/** Whether every word of `brand` is in `legalName` ("ACE HARDWARE" over "Ace Hardware Corporation"): the legal name already says it. */
function repeatsWordsOf(legalName: string, brand: string): boolean {
  const words = new Set(legalName.toLowerCase().split(/[^\p{L}\d]+/u).filter(Boolean));
  return brand.toLowerCase().split(/[^\p{L}\d]+/u).filter(Boolean).every((word) => words.has(word));
}

/** A head line that ends in "&" or "AND": the name goes on on the next line. */
const CONTINUED_BY_NEXT_LINE = /(?:&|(?<![\p{L}])and)\s*$/iu;

/**
 * A registration number after a name, its brackets misread or missing: "99 SPEED MART S/B 1519537-X}",
 * "{519537 Xi"; or with some of its digits read as the letters they look like, its check letter after
 * a dash ("BOZ7ZO-U" for 802720-U: B for 8, O or D for 0, Z for 2, S for 5, G for 6, I or l for 1).
 */
const REGISTRATION_NUMBER_AT_END = /\s+[({[]?\s*(?:\d{5,}\s?-?\s?\p{L}{0,2}|(?=[OQDIlZSGB]*\d)[\dOQDIlZSGB]{5,8}\s?-\s?\p{Lu})\s*[)}\]]?[\s,.;:]*$/u;

/** A line that is a company registration number and nothing else ("002693074-K", "(1120908-M)"). */
const isRegistrationNumberAlone = (text: string): boolean => ` ${text.trim()}`.replace(REGISTRATION_NUMBER_AT_END, '') === '';

/**
 * A brand line printed in a font half as large again as the legal name under it ("Sarang Hae Yo" over
 * "TRENDYMAX (M) SDN. BHD.", a slogan beside the logo): a line of its own, not a name wrapped into the next.
 */
function printedLarger(line: LayoutSegment, next: LayoutSegment): boolean {
  return line.box.height > next.box.height * 1.5;
}

/**
 * Whether a line was wrapped into the next: the paper had no room for the next line's first word
 * beside it. A line that had room (a short brand line over a long legal name) was printed on its own.
 */
function wrapsInto(line: LayoutSegment, next: LayoutSegment, following: LayoutSegment[]): boolean {
  const nextWord = next.words[0];
  if (!nextWord) return true;
  const characterWidth = line.box.width / Math.max(1, line.text.length);
  const widest = Math.max(...following.map((segment) => segment.box.width));
  return line.box.width + characterWidth + nextWord.box.width > widest;
}

function hasBalancedParentheses(text: string): boolean {
  return (text.match(/\(/g) ?? []).length === (text.match(/\)/g) ?? []).length;
}

/** Seller from the sender line, buyer from the first name line under it in the window. */
export function returnAddressCandidates(layout: DocumentLayout, returnAddress: LayoutSegment[], sellerField: string, buyerField: string): FieldCandidate[] {
  const found: FieldCandidate[] = [];
  for (const segment of returnAddress) {
    const company = findCompanyNames(segment.text)[0];
    const senderName = company?.name ?? cleanPartyName(segment.text.split(/\s[|●•·–-]\s|[|●•·]/)[0] ?? '');
    if (senderName) {
      found.push({ fieldName: sellerField, value: senderName, score: company ? 0.72 : 0.55, pageNumber: segment.pageNumber, box: segment.box, segmentId: segment.id, evidence: 'sender line above the address window' });
    }
    const page = layout.pages.find((candidate) => candidate.pageNumber === segment.pageNumber);
    if (!page) continue;
    for (let rowIndex = segment.rowIndex + 1; rowIndex <= segment.rowIndex + 3; rowIndex += 1) {
      const below = page.rows[rowIndex]?.segments.find((candidate) => Math.abs(candidate.box.x - segment.box.x) < 0.03);
      if (!below) continue;
      const name = cleanPartyName(below.text);
      if (!name || /\d/.test(name)) continue;
      found.push({ fieldName: buyerField, value: name, score: 0.6, pageNumber: below.pageNumber, box: below.box, segmentId: below.id, evidence: 'first name in the address window' });
      break;
    }
  }
  return found;
}

export interface AddressBlock {
  /** The first line: the addressee's name. */
  name: string;
  nameSegment: LayoutSegment;
  segments: LayoutSegment[];
}

/**
 * Unlabelled address blocks near the top of the first page: a name line followed, in the same
 * column, by at least two lines of which the last carries a postcode. Blocks may overlap (a heading
 * line above the name also starts one); callers drop the ones they can explain.
 */
export function findAddressBlocks(layout: DocumentLayout): AddressBlock[] {
  const page = layout.pages[0];
  if (!page) return [];
  const blocks: AddressBlock[] = [];
  const rows = page.rows.filter((row) => row.top < 0.4);
  for (const row of rows) {
    for (const segment of row.segments) {
      const column: LayoutSegment[] = [segment];
      for (const next of page.rows.slice(row.index + 1, row.index + 6)) {
        const below = next.segments.find((candidate) => Math.abs(candidate.box.x - segment.box.x) < 0.015);
        const previous = column[column.length - 1] as LayoutSegment;
        if (!below || below.box.y - (previous.box.y + previous.box.height) > page.typicalLineHeight * 1.5) break;
        column.push(below);
      }
      if (column.length < 3) continue;
      const postcodeLine = column.slice(1).findIndex((line) => POSTCODE.test(line.text) && /\p{L}{2}/u.test(line.text));
      if (postcodeLine < 0) continue;
      const name = cleanPartyName(segment.text);
      if (!name || /\d/.test(name) || looksLikeKeyAndValue(segment.text)) continue;
      const lines = column.slice(0, postcodeLine + 2);
      blocks.push({ name, nameSegment: segment, segments: lines });
    }
  }
  return blocks;
}
