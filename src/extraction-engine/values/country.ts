// Which country a document comes from, from what is printed on it: country and region names, the
// legal form of a company ("Sdn Bhd" is Malaysian, "Pte Ltd" Singaporean), tax id names and formats
// (SST, GSTIN, ABN, UEN), and international phone prefixes. Used where a document prints no currency,
// or only a sign several currencies share ("$", "kr", "¥", "Rs").

import { matchesOf } from './pattern-matches.ts';

export interface CountryMention {
  /** ISO 3166-1 alpha-2 codes this mention points to, each with its share of the weight. */
  countries: string[];
  weight: number;
  index: number;
  length: number;
  evidence: string;
}

/** The currency of each country the evidence can name (ISO 3166-1 alpha-2 to ISO 4217). */
export const CURRENCY_OF_COUNTRY: Readonly<Record<string, string>> = {
  AT: 'EUR', BE: 'EUR', CY: 'EUR', DE: 'EUR', EE: 'EUR', ES: 'EUR', FI: 'EUR', FR: 'EUR', GR: 'EUR', HR: 'EUR', IE: 'EUR', IT: 'EUR',
  LT: 'EUR', LU: 'EUR', LV: 'EUR', MT: 'EUR', NL: 'EUR', PT: 'EUR', SI: 'EUR', SK: 'EUR',
  GB: 'GBP', CH: 'CHF', LI: 'CHF', PL: 'PLN', CZ: 'CZK', HU: 'HUF', RO: 'RON', BG: 'BGN', SE: 'SEK', NO: 'NOK', DK: 'DKK', IS: 'ISK',
  RS: 'RSD', UA: 'UAH', RU: 'RUB', TR: 'TRY', IL: 'ILS', AE: 'AED', SA: 'SAR', QA: 'QAR', KW: 'KWD', EG: 'EGP', MA: 'MAD',
  ZA: 'ZAR', NG: 'NGN', KE: 'KES', US: 'USD', CA: 'CAD', MX: 'MXN', BR: 'BRL', AR: 'ARS', CL: 'CLP', CO: 'COP', PE: 'PEN',
  AU: 'AUD', NZ: 'NZD', MY: 'MYR', SG: 'SGD', ID: 'IDR', TH: 'THB', VN: 'VND', PH: 'PHP', IN: 'INR', PK: 'PKR', LK: 'LKR',
  NP: 'NPR', BD: 'BDT', CN: 'CNY', HK: 'HKD', TW: 'TWD', JP: 'JPY', KR: 'KRW', KZ: 'KZT', GE: 'GEL',
};

interface CountryRule {
  pattern: RegExp;
  countries: string[];
  weight: number;
  evidence: string;
}

const names = (countries: string[], words: string[], flags = 'giu'): CountryRule => ({
  pattern: new RegExp(`(?<![\\p{L}])(?:${words.join('|')})(?![\\p{L}])`, flags),
  weight: 1,
  countries,
  evidence: 'country or region name',
});

// Country names in English and their own languages, and regions or cities that only one country has
// (Malaysian states, Indian metropolises ...). A name in a sentence ("shipped to Germany") counts as
// much as one in an address: the seller's and buyer's countries usually agree, and where they do not,
// the currency sign normally settles it.
const NAME_RULES: CountryRule[] = [
  names(['MY'], ['Malaysia', 'Kuala Lumpur', 'Selangor', 'Johor(?: Bahru)?', 'Pulau Pinang', 'Penang', 'Perak', 'Kedah', 'Kelantan', 'Terengganu', 'Pahang', 'Negeri Sembilan', 'Melaka', 'Malacca', 'Sabah', 'Sarawak', 'Putrajaya', 'Labuan', 'Petaling Jaya', 'Shah Alam']),
  names(['SG'], ['Singapore', 'Singapura']),
  names(['ID'], ['Indonesia', 'Jakarta', 'Surabaya', 'Bandung']),
  names(['TH'], ['Thailand', 'Bangkok']),
  names(['PH'], ['Philippines', 'Manila', 'Quezon City', 'Cebu']),
  names(['VN'], ['Vietnam', 'Viet Nam', 'Hanoi', 'Ha Noi', 'Ho Chi Minh']),
  names(['IN'], ['India', 'Mumbai', 'New Delhi', 'Delhi', 'Bengaluru', 'Bangalore', 'Chennai', 'Kolkata', 'Hyderabad', 'Maharashtra', 'Karnataka', 'Tamil Nadu', 'Gujarat', 'Haryana', 'Uttar Pradesh']),
  names(['PK'], ['Pakistan', 'Karachi', 'Lahore', 'Islamabad']),
  names(['LK'], ['Sri Lanka', 'Colombo']),
  names(['BD'], ['Bangladesh', 'Dhaka']),
  names(['NP'], ['Nepal', 'Kathmandu']),
  names(['CN'], ['China', "People's Republic of China", 'P\\.R\\. China', 'Beijing', 'Shanghai', 'Shenzhen', 'Guangzhou', '中国']),
  names(['HK'], ['Hong Kong', 'Kowloon', '香港']),
  names(['TW'], ['Taiwan', 'Taipei', '台灣', '台湾']),
  names(['JP'], ['Japan', 'Tokyo', 'Osaka', '日本', '東京']),
  names(['KR'], ['Korea', 'Seoul', '대한민국']),
  names(['AU'], ['Australia', 'Sydney', 'Melbourne', 'Brisbane', 'Adelaide', 'New South Wales', 'Queensland']),
  names(['NZ'], ['New Zealand', 'Aotearoa', 'Auckland', 'Wellington', 'Christchurch']),
  names(['CA'], ['Canada', 'Toronto', 'Montreal', 'Montréal', 'Vancouver', 'Ontario', 'Quebec', 'Québec', 'Alberta', 'British Columbia']),
  names(['US'], ['United States', 'U\\.S\\.A\\.', 'New York', 'California', 'Texas', 'Florida']),
  // Acronyms only in capitals: "usa" is a Spanish, Italian and Portuguese verb.
  names(['US'], ['USA'], 'gu'),
  names(['CN'], ['PRC'], 'gu'),
  names(['AE'], ['UAE'], 'gu'),
  names(['GB'], ['United Kingdom', 'Great Britain', 'England', 'Scotland', 'Wales', 'Northern Ireland', 'London', 'U\\.K\\.']),
  names(['IE'], ['Ireland', 'Éire', 'Dublin']),
  names(['DE'], ['Germany', 'Deutschland', 'Berlin', 'München', 'Hamburg', 'Frankfurt am Main', 'Köln']),
  names(['AT'], ['Austria', 'Österreich', 'Wien', 'Vienna']),
  names(['CH'], ['Switzerland', 'Schweiz', 'Suisse', 'Svizzera', 'Zürich', 'Zurich', 'Genève', 'Geneva', 'Basel', 'Bern']),
  names(['LI'], ['Liechtenstein']),
  names(['FR'], ['France', 'Paris']),
  names(['BE'], ['Belgium', 'Belgique', 'België', 'Belgien', 'Bruxelles', 'Brussel', 'Brussels']),
  names(['NL'], ['Netherlands', 'Nederland', 'Amsterdam', 'Rotterdam']),
  names(['LU'], ['Luxembourg', 'Luxemburg']),
  names(['ES'], ['Spain', 'España', 'Madrid', 'Barcelona']),
  names(['PT'], ['Portugal', 'Lisboa', 'Lisbon']),
  names(['IT'], ['Italy', 'Italia', 'Roma', 'Milano', 'Milan']),
  names(['PL'], ['Poland', 'Polska', 'Warszawa', 'Warsaw', 'Kraków', 'Wrocław', 'Poznań', 'Gdańsk']),
  names(['CZ'], ['Czech Republic', 'Czechia', 'Česká republika', 'Praha', 'Prague']),
  names(['SK'], ['Slovakia', 'Slovensko', 'Bratislava']),
  names(['HU'], ['Hungary', 'Magyarország', 'Budapest']),
  names(['RO'], ['Romania', 'România', 'București', 'Bucharest']),
  names(['BG'], ['Bulgaria', 'България']),
  names(['SE'], ['Sweden', 'Sverige', 'Stockholm', 'Göteborg', 'Malmö']),
  names(['NO'], ['Norway', 'Norge', 'Oslo']),
  names(['DK'], ['Denmark', 'Danmark', 'København', 'Copenhagen', 'Aarhus']),
  names(['IS'], ['Iceland', 'Ísland', 'Reykjavík', 'Reykjavik']),
  names(['FI'], ['Finland', 'Suomi', 'Helsinki']),
  names(['GR'], ['Greece', 'Ελλάδα', 'Athens']),
  names(['TR'], ['Turkey', 'Türkiye', 'Istanbul', 'İstanbul', 'Ankara']),
  names(['IL'], ['Israel', 'Tel Aviv']),
  names(['AE'], ['United Arab Emirates', 'U\\.A\\.E\\.', 'Dubai', 'Abu Dhabi', 'Sharjah']),
  names(['SA'], ['Saudi Arabia', 'Riyadh', 'Jeddah']),
  names(['QA'], ['Qatar', 'Doha']),
  names(['EG'], ['Egypt', 'Cairo']),
  names(['MA'], ['Morocco', 'Maroc', 'Casablanca', 'Rabat']),
  names(['ZA'], ['South Africa', 'Johannesburg', 'Cape Town', 'Pretoria', 'Durban']),
  names(['NG'], ['Nigeria', 'Lagos', 'Abuja']),
  names(['KE'], ['Kenya', 'Nairobi']),
  names(['BR'], ['Brazil', 'Brasil', 'São Paulo', 'Sao Paulo', 'Rio de Janeiro']),
  names(['MX'], ['Mexico', 'México', 'Ciudad de México', 'CDMX', 'Guadalajara', 'Monterrey']),
  names(['AR'], ['Argentina', 'Buenos Aires']),
  names(['CL'], ['Chile', 'Santiago de Chile']),
  names(['CO'], ['Colombia', 'Bogotá', 'Bogota', 'Medellín']),
  names(['PE'], ['Peru', 'Perú']),
  names(['RU'], ['Russia', 'Россия', 'Moscow', 'Москва']),
  names(['UA'], ['Ukraine', 'Україна', 'Kyiv', 'Kiev']),
];

const legalForm = (countries: string[], pattern: string, weight = 1): CountryRule => ({
  pattern: new RegExp(`(?<![\\p{L}\\d])(?:${pattern})(?![\\p{L}\\d])`, 'gu'),
  countries,
  weight,
  evidence: 'legal form',
});

// Legal forms that belong to one country (or a few, which share the weight). English "Ltd", "Inc"
// and "Co." are used the world over and say nothing.
const LEGAL_FORM_RULES: CountryRule[] = [
  legalForm(['MY'], '[Ss][Dd][Nn]\\.? ?[Bb][Hh][Dd]\\.?|S/B|[Bb][Ee][Rr][Hh][Aa][Dd]|BHD\\.?|Bhd\\.?', 1.5),
  // OCR misreads "SDN BHD" closing a till's name line ("SUN BHO", "SDN 3HD", "5DN 8HD"): the same
  // closed vocabulary the seller's name is restored from (fields/document-evidence.ts), only at the
  // end of a line and weighing less than the form read as printed. A "BHD" read right counts as
  // printed (above), so it is not counted again here.
  {
    pattern: /(?<![\p{L}\d])[S5][DUOHN][NH]\.? ?(?!BHD)[B83][HN][DO0]\.?(?=\s*$)/giu,
    countries: ['MY'],
    weight: 1,
    evidence: 'legal form, as OCR misread it',
  },
  legalForm(['SG'], '[Pp][Tt][Ee]\\.? ?[Ll][Tt][Dd]\\.?', 1.5),
  legalForm(['AU'], '[Pp][Tt][Yy]\\.? ?[Ll][Tt][Dd]\\.?', 1),
  legalForm(['IN'], '[Pp][Vv][Tt]\\.? ?[Ll][Tt][Dd]\\.?|Private Limited', 1),
  legalForm(['ID'], 'Tbk\\.?|TBK', 1),
  legalForm(['DE', 'AT', 'CH'], 'GmbH|GMBH|gGmbH|GmbH & Co\\.? KG|AG|UG', 0.6),
  legalForm(['DE'], 'e\\.K\\.|e\\.V\\.|GbR|OHG|KGaA', 0.6),
  legalForm(['FR', 'LU', 'BE'], 'S\\.A\\.R\\.L\\.?|SARL|Sàrl|SASU|EURL|S\\.A\\.S\\.', 0.6),
  legalForm(['NL', 'BE'], 'B\\.V\\.|N\\.V\\.|V\\.O\\.F\\.', 0.6),
  legalForm(['BE'], 'BVBA|SPRL|BV ?BA', 0.6),
  legalForm(['PL'], '[Ss]p\\. ?z ?o\\.o\\.|S\\.K\\.A\\.|[Ss]p\\. ?j\\.', 1),
  legalForm(['CZ', 'SK'], 's\\.r\\.o\\.|spol\\. s r\\.o\\.', 1),
  legalForm(['HU'], 'Kft\\.?|Zrt\\.?|Nyrt\\.?', 1),
  legalForm(['IT'], 'S\\.p\\.A\\.|S\\.r\\.l\\.|S\\.n\\.c\\.', 0.6),
  legalForm(['ES'], 'S\\.L\\.U?\\.', 0.6),
  legalForm(['SE'], 'AB \\(publ\\)|Aktiebolag', 1),
  legalForm(['DK'], 'ApS|A/S', 0.8),
  legalForm(['NO'], 'ASA', 0.6),
  legalForm(['FI'], 'Oyj?', 0.8),
  legalForm(['JP'], '株式会社|K\\.K\\.|Kabushiki Kaisha', 1),
  legalForm(['CN'], '有限公司', 0.6),
  legalForm(['MX'], 'S\\.A\\. [Dd][Ee] C\\.V\\.|SA [Dd][Ee] CV|S\\. [Dd][Ee] R\\.L\\. [Dd][Ee] C\\.V\\.|S [Dd][Ee] RL [Dd][Ee] CV', 1),
];

const taxId = (countries: string[], pattern: string, weight = 1, flags = 'gu'): CountryRule => ({ pattern: new RegExp(pattern, flags), countries, weight, evidence: 'tax id name or format' });

// Tax ids by name or shape. "GST" alone is used by several countries (MY until 2018, SG, AU, NZ, IN,
// CA) and counts for each a little; the shapes below are specific.
const TAX_ID_RULES: CountryRule[] = [
  taxId(['MY'], '(?<![\\p{L}])SST(?:\\s*(?:Reg|ID|No))', 1.5),
  taxId(['MY'], '\\(\\s?(?:\\d{5,9}|\\d{12})\\s?-\\s?[A-Z]\\s?\\)', 1),
  // The same company number after its label, without parentheses: "REG. NO:00148397-H", "Co. No. 113825-W".
  taxId(['MY'], '(?<![\\p{L}])(?:Co|Reg|Company)\\.?\\s?(?:Reg\\.?\\s?)?No\\.?\\s?[:.]?\\s?\\d{5,9}\\s?-\\s?[A-Z](?![\\p{L}\\d])', 1, 'giu'),
  taxId(['IN'], '(?<![\\p{L}])GSTIN|(?<![A-Z\\d])\\d{2}[A-Z]{5}\\d{4}[A-Z][1-9A-Z]Z[\\dA-Z](?![A-Z\\d])', 1.5),
  taxId(['IN'], '(?<![\\p{L}])PAN(?: No\\.?)?\\s*:?\\s*[A-Z]{5}\\d{4}[A-Z](?![A-Z\\d])', 1),
  taxId(['AU'], '(?<![\\p{L}])ABN\\s*:?\\s*\\d{2}\\s?\\d{3}\\s?\\d{3}\\s?\\d{3}', 1.5),
  taxId(['NZ'], '(?<![\\p{L}])(?:NZBN|IRD)(?![\\p{L}])', 1),
  taxId(['SG'], '(?<![\\p{L}])UEN(?![\\p{L}])', 1),
  taxId(['ID'], '(?<![\\p{L}])NPWP(?![\\p{L}])', 1),
  taxId(['MY', 'SG', 'AU', 'NZ', 'IN', 'CA'], '(?<![\\p{L}])GST(?![\\p{L}])', 0.5),
  taxId(['US'], '(?<![\\p{L}])EIN(?:\\s*:?\\s*\\d{2}-\\d{7})', 1),
  taxId(['PL'], '(?<![\\p{L}])NIP(?![\\p{L}])', 0.8),
  taxId(['DE', 'AT', 'CH'], '(?<![\\p{L}])(?:USt-?IdNr|MwSt|UID)(?![\\p{L}])', 0.4),
  taxId(['CH'], '(?<![\\p{L}])CHE-?\\d{3}\\.\\d{3}\\.\\d{3}', 1.5),
  taxId(['FR'], '(?<![\\p{L}])(?:SIRET|SIREN)(?![\\p{L}])', 1),
  // Latin America: Mexico's RFC, Brazil's CNPJ (by name or shape), Argentina's CUIT.
  taxId(['MX'], '(?<![\\p{L}])R\\.F\\.C\\.|(?<![\\p{L}])RFC(?![\\p{L}])', 1),
  taxId(['BR'], '(?<![\\p{L}])CNPJ(?![\\p{L}])|(?<![\\d])\\d{2}\\.\\d{3}\\.\\d{3}/\\d{4}-\\d{2}(?![\\d])', 1.5),
  taxId(['AR'], '(?<![\\p{L}])(?:C\\.U\\.I\\.T\\.|CUIT)(?![\\p{L}])', 1),
];

const postalAddress = (countries: string[], pattern: string, weight = 1): CountryRule => ({ pattern: new RegExp(pattern, 'gu'), countries, weight, evidence: 'postal address' });

// The last line of a postal address, where its shape belongs to one country: a US state's code before
// a ZIP code ("Austin TX 78701", "Sacramento, CA 95815-1234"), a Canadian province before a postal
// code ("Toronto ON M5V 2T6"), an Australian state before four digits ("Sydney NSW 2000"), a UK
// postcode ("London W1D 1AN"). A till names its town this way far more often than its country. Codes
// in capitals only, standing alone, and the number whole: "DE812706034" is a VAT id, "IN 560001" a PIN.
const US_STATES = 'AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY';
const CANADIAN_PROVINCES = 'AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT';
const POSTAL_ADDRESS_RULES: CountryRule[] = [
  postalAddress(['US'], `(?<![\\p{L}\\d#])(?:${US_STATES}),?\\s+\\d{5}(?:-\\d{4})?(?![\\p{L}\\d])`),
  postalAddress(['CA'], `(?<![\\p{L}\\d])(?:${CANADIAN_PROVINCES}),?\\s+[ABCEGHJ-NPRSTVXY]\\d[ABCEGHJ-NPRSTV-Z]\\s?\\d[ABCEGHJ-NPRSTV-Z]\\d(?![\\p{L}\\d])`),
  postalAddress(['AU'], '(?<![\\p{L}\\d])(?:NSW|VIC|QLD|TAS|ACT|WA|SA|NT),?\\s+\\d{4}(?![\\p{L}\\d])'),
  postalAddress(['GB'], '(?<![\\p{L}\\d])(?:[A-Z]{1,2}\\d{1,2}|[A-Z]{1,2}\\d[A-Z])\\s\\d[ABD-HJLNP-UW-Z]{2}(?![\\p{L}\\d])', 0.8),
];

// International dialling codes, longest first so "+852" is Hong Kong rather than "+85".
const PHONE_PREFIXES: [string, string][] = [
  ['852', 'HK'], ['886', 'TW'], ['880', 'BD'], ['971', 'AE'], ['966', 'SA'], ['974', 'QA'], ['965', 'KW'], ['972', 'IL'], ['977', 'NP'],
  ['353', 'IE'], ['351', 'PT'], ['352', 'LU'], ['354', 'IS'], ['358', 'FI'], ['359', 'BG'], ['420', 'CZ'], ['421', 'SK'], ['423', 'LI'],
  ['234', 'NG'], ['254', 'KE'], ['212', 'MA'], ['380', 'UA'], ['381', 'RS'], ['385', 'HR'], ['386', 'SI'], ['370', 'LT'], ['371', 'LV'], ['372', 'EE'],
  ['20', 'EG'], ['27', 'ZA'], ['30', 'GR'], ['31', 'NL'], ['32', 'BE'], ['33', 'FR'], ['34', 'ES'], ['36', 'HU'], ['39', 'IT'], ['40', 'RO'],
  ['41', 'CH'], ['43', 'AT'], ['44', 'GB'], ['45', 'DK'], ['46', 'SE'], ['47', 'NO'], ['48', 'PL'], ['49', 'DE'], ['51', 'PE'], ['52', 'MX'],
  ['54', 'AR'], ['55', 'BR'], ['56', 'CL'], ['57', 'CO'], ['60', 'MY'], ['61', 'AU'], ['62', 'ID'], ['63', 'PH'], ['64', 'NZ'], ['65', 'SG'],
  ['66', 'TH'], ['81', 'JP'], ['82', 'KR'], ['84', 'VN'], ['86', 'CN'], ['90', 'TR'], ['91', 'IN'], ['92', 'PK'], ['94', 'LK'], ['7', 'RU'],
  ['1', 'US'],
];
const PHONE = /(?<![\w+])(?:\+|00)\s?(\d{1,3})[\s(.-]*\d/gu;
/** Eleven digits or more in one run, nothing between them. */
const UNBROKEN_DIGITS = /^\d{11,}(?!\d)/u;
/** Country code and national number together: fewer digits after "+" or "00" are no phone number. */
const MIN_INTERNATIONAL_DIGITS = 8;

const ALL_RULES = [...NAME_RULES, ...LEGAL_FORM_RULES, ...TAX_ID_RULES, ...POSTAL_ADDRESS_RULES];

/** Any of the postal address rules, as one pattern (without the global flag: a test keeps no state). */
const POSTAL_TOWN = new RegExp(POSTAL_ADDRESS_RULES.map((rule) => `(?:${rule.pattern.source})`).join('|'), 'u');

/** Whether the text holds the town line of a postal address ("Nashville, TN 37203", "London W1D 1AN"). */
export function namesPostalTown(text: string): boolean {
  return POSTAL_TOWN.test(text);
}

/**
 * Whether any rule can match the text, as one pattern per set of flags: most lines name no country,
 * and one scan of the line answers that for all the rules at once (a hundred scans did, per line).
 */
const ANY_RULE_SCREENS = [...new Set(ALL_RULES.map((rule) => rule.pattern.flags.replace('g', '')))].map(
  (flags) => new RegExp(ALL_RULES.filter((rule) => rule.pattern.flags.replace('g', '') === flags).map((rule) => `(?:${rule.pattern.source})`).join('|'), flags),
);

/** Every piece of country evidence in the text, in reading order. */
export function findCountryMentions(text: string): CountryMention[] {
  const mentions: CountryMention[] = [];
  const anyRuleMatches = ANY_RULE_SCREENS.some((screen) => screen.test(text));
  for (const rule of anyRuleMatches ? ALL_RULES : []) {
    for (const match of matchesOf(rule.pattern, text)) {
      mentions.push({ countries: rule.countries, weight: rule.weight, index: match.index, length: match[0].length, evidence: rule.evidence });
    }
  }
  for (const match of matchesOf(PHONE, text)) {
    // "(002022599 - U)" is a registration number: a number dialled abroad has eight digits or more.
    const dialled = /^[\d\s().-]*/.exec(text.slice(match.index).replace(/^(?:\+|00)/, ''))?.[0].replace(/\D/g, '') ?? '';
    if (dialled.length < MIN_INTERNATIONAL_DIGITS) continue;
    // "007874235186" on an item line is a barcode (UPC, EAN) with its leading zeros, and "001287233536"
    // a tax number: a number dialled abroad from "00" is written in groups, never as one run of digits.
    if (match[0].startsWith('00') && UNBROKEN_DIGITS.test(text.slice(match.index))) continue;
    const digits = match[1] ?? '';
    const prefix = PHONE_PREFIXES.find(([code]) => digits.startsWith(code));
    // "+1" is shared by the US, Canada and the Caribbean: it counts for both of the larger ones.
    if (prefix) mentions.push({ countries: prefix[1] === 'US' ? ['US', 'CA'] : [prefix[1]], weight: 0.8, index: match.index, length: match[0].length, evidence: 'phone prefix' });
  }
  return mentions.sort((left, right) => left.index - right.index);
}

/** Country weights summed over texts; a mention shared by several countries splits its weight. */
export function weighCountries(mentions: Iterable<CountryMention>): Map<string, number> {
  const weights = new Map<string, number>();
  for (const mention of mentions) {
    for (const country of mention.countries) weights.set(country, (weights.get(country) ?? 0) + mention.weight / mention.countries.length);
  }
  return weights;
}
