// Visible text of HTML as lines: scripts, styles and other invisible content dropped, block elements
// ending lines, table cells separated by a tab so a row stays one line. A tolerant scan rather than a
// DOM parser: invoice e-mails and exports are rarely well-formed, and only the text matters here.

const invisibleElements = ['script', 'style', 'head', 'template', 'noscript', 'svg', 'object', 'iframe'];

const blockElements = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'br', 'caption', 'center', 'dd', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr',
  'html', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'tbody', 'tfoot', 'thead', 'tr', 'ul',
]);

const cellElements = new Set(['td', 'th']);

/** HTML 4 Latin-1 entity names for code points 160..255, in order. */
const latin1EntityNames =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml'.split(' ');

const namedEntities: Record<string, string> = {
  ...Object.fromEntries(latin1EntityNames.map((name, index) => [name, String.fromCodePoint(160 + index)])),
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", euro: '€', ndash: '–', mdash: '—', lsquo: '‘', rsquo: '’',
  sbquo: '‚', ldquo: '“', rdquo: '”', bdquo: '„', bull: '•', hellip: '…', trade: '™', permil: '‰', thinsp: ' ',
  ensp: ' ', emsp: ' ', OElig: 'Œ', oelig: 'œ', Scaron: 'Š', scaron: 'š', Yuml: 'Ÿ', Aogon: 'Ą', aogon: 'ą',
  Cacute: 'Ć', cacute: 'ć', Eogon: 'Ę', eogon: 'ę', Lstrok: 'Ł', lstrok: 'ł', Nacute: 'Ń', nacute: 'ń',
  Sacute: 'Ś', sacute: 'ś', Zacute: 'Ź', zacute: 'ź', Zdot: 'Ż', zdot: 'ż', Zcaron: 'Ž', zcaron: 'ž',
};

/** Decodes character references: named (common ones), decimal and hexadecimal. Unknown names stay as written. */
export function decodeCharacterReferences(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z][a-z0-9]*);/giu, (reference, body: string) => {
    if (body.startsWith('#')) {
      const codePoint = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : reference;
    }
    return namedEntities[body] ?? reference;
  });
}

/** Lines of visible text; cells of one table row are joined by a tab. */
export function htmlToTextLines(html: string): string[] {
  let visible = html.replace(/<!--[\s\S]*?(-->|$)/gu, '');
  for (const element of invisibleElements) {
    visible = visible.replace(new RegExp(`<${element}\\b[\\s\\S]*?(</${element}\\s*>|$)`, 'giu'), '\n');
  }
  const pieces: string[] = [];
  const tagPattern = /<\/?([a-z][a-z0-9-]*)\b[^>]*>|<[!?][^>]*>/giu;
  let position = 0;
  let insidePre = false;
  let insideCell = false;
  for (const match of visible.matchAll(tagPattern)) {
    pieces.push(collapseText(visible.slice(position, match.index), insidePre));
    position = match.index + match[0].length;
    const name = match[1]?.toLowerCase();
    if (!name) continue;
    const isClosing = match[0].startsWith('</');
    if (name === 'pre') insidePre = !isClosing;
    if (name === 'tr' || name === 'table') {
      insideCell = false;
      pieces.push('\n');
    } else if (cellElements.has(name)) {
      insideCell = !isClosing;
      if (!isClosing) pieces.push('\t');
    } else if (blockElements.has(name)) {
      // Paragraphs inside a cell (Word tables always have them) must not break the row apart.
      pieces.push(insideCell ? ' ' : '\n');
    }
  }
  pieces.push(collapseText(visible.slice(position), insidePre));
  return pieces
    .join('')
    .split('\n')
    .map((line) => decodeCharacterReferences(line).replace(/\u00a0/gu, ' ').replace(/ *\t[\t ]*/gu, '\t').replace(/^[\t ]+|[\t ]+$/gu, ''))
    .filter((line) => line !== '');
}

/** Outside <pre>, runs of whitespace (including source line breaks) render as one space. */
function collapseText(text: string, preserveLineBreaks: boolean): string {
  if (preserveLineBreaks) return text.replace(/\r\n?/gu, '\n');
  return text.replace(/\s+/gu, ' ');
}
