// Text has no magic number. These checks decide whether the start of a file is text at all, whether it
// is a script (blocked), HTML, CSV or plain text. They look at the sniffed head only, so the last line
// may be cut short when the file is longer than the head.

/** Decodes the head as text, or returns undefined when it is binary. */
export function decodeText(head: Uint8Array, isWholeFile: boolean): string | undefined {
  if (head[0] === 0xff && head[1] === 0xfe) return new TextDecoder('utf-16le').decode(head.subarray(2));
  if (head[0] === 0xfe && head[1] === 0xff) return new TextDecoder('utf-16be').decode(head.subarray(2));
  if (head.includes(0x00)) return undefined;
  const bytes = isWholeFile ? head : withoutCutSequence(head);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    // Not UTF-8: legacy single-byte text (Windows-1252, Latin-1) still reads as text; binary does not
    // survive the control-character check below.
    text = new TextDecoder('windows-1252').decode(bytes);
  }
  return controlCharacterShare(text) <= 0.01 ? text : undefined;
}

/** A head cut inside a multi-byte UTF-8 sequence would fail strict decoding; drop the partial tail. */
function withoutCutSequence(head: Uint8Array): Uint8Array {
  for (let back = 1; back <= 3 && back <= head.length; back += 1) {
    const byte = head[head.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const sequenceLength = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return sequenceLength > back ? head.subarray(0, head.length - back) : head;
  }
  return head;
}

function controlCharacterShare(text: string): number {
  if (text.length === 0) return 0;
  let controls = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const allowedWhitespace = code === 0x09 || code === 0x0a || code === 0x0d || code === 0x0c || code === 0x1b;
    if ((code < 0x20 && !allowedWhitespace) || code === 0x7f) controls += 1;
  }
  return controls / text.length;
}

export type TextMediaType = 'text/html' | 'text/csv' | 'text/tab-separated-values' | 'application/json' | 'application/xml' | 'text/plain';

export function textMediaType(text: string, isWholeFile: boolean): TextMediaType {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (isHtml(start)) return 'text/html';
  if (/^<\?xml\s/i.test(start)) return 'application/xml';
  if (isWholeFile && /^[[{]/.test(start) && isJson(start)) return 'application/json';
  const delimiter = tableDelimiter(completeLines(start, isWholeFile));
  if (delimiter === '\t') return 'text/tab-separated-values';
  if (delimiter) return 'text/csv';
  return 'text/plain';
}

function isHtml(start: string): boolean {
  if (!start.startsWith('<')) return false;
  return /^(?:<!--[^]*?-->\s*)*<!doctype\s+html\b/i.test(start) || /<(?:html|head|body)[\s>]/i.test(start.slice(0, 2048));
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function completeLines(text: string, isWholeFile: boolean): string[] {
  const lines = text.split(/\r\n|\n|\r/);
  if (!isWholeFile) lines.pop(); // the head may end mid-line
  return lines.filter((line) => line.trim() !== '').slice(0, 100);
}

/**
 * A table has at least two lines that all split into the same number (≥ 2) of fields on one
 * delimiter. Two-column "tables" need a third line, so two lines of prose with one comma each stay text.
 */
function tableDelimiter(lines: string[]): string | undefined {
  if (lines.length < 2) return undefined;
  for (const delimiter of [',', ';', '\t', '|']) {
    const counts = lines.map((line) => fieldCount(line, delimiter));
    const columns = counts[0]!;
    if (columns < 2 || !counts.every((count) => count === columns)) continue;
    if (columns === 2 && lines.length < 3) continue;
    return delimiter;
  }
  return undefined;
}

function fieldCount(line: string, delimiter: string): number {
  let fields = 1;
  let quoted = false;
  for (const character of line) {
    if (character === '"') quoted = !quoted;
    else if (character === delimiter && !quoted) fields += 1;
  }
  return fields;
}

interface ScriptLanguage {
  name: string;
  /** One match is enough: these only appear in programs. */
  decisive: RegExp[];
  /** Lines that look like this language; a file made mostly of them is a script. */
  codeLines: RegExp[];
}

const scriptLanguages: ScriptLanguage[] = [
  {
    // Windows Script Host files (.wsf) and HTML Applications (.hta) are markup that Windows runs.
    name: 'a Windows Script Host or HTML Application file',
    decisive: [/<script\s[^>]*language\s*=\s*["']?(?:JScript|VBScript)\b/i, /<hta:application\b/i],
    codeLines: [],
  },
  {
    name: 'a Windows batch script',
    decisive: [/^\s*@echo\s+off\b/im, /^\s*(?:cmd(?:\.exe)?\s+\/c|powershell(?:\.exe)?\s+-(?:enc|e|command|nop|w)\b)/im],
    codeLines: [
      /^\s*@?echo(?:\s|\.|$)/i,
      /^\s*set\s+(?:\/[ap]\s+)?"?[a-z_][\w.]*=/i,
      /^\s*goto\s+:?\w+/i,
      /^\s*:[a-z_]\w*\s*$/i,
      /^\s*if\s+(?:\/i\s+)?(?:not\s+)?(?:exist|errorlevel|defined|"?%)/i,
      /^\s*(?:call|start|del|copy|move|mkdir|rmdir|pushd|popd|setlocal|endlocal|exit\s+\/b)\b/i,
      /^\s*rem(?:\s|$)/i,
      /%%\w|%~?\d|%[a-z_]\w*%/i,
    ],
  },
  {
    name: 'a PowerShell script',
    decisive: [
      /\b(?:Invoke-Expression|Invoke-WebRequest|Set-ExecutionPolicy|Start-Process|Add-MpPreference)\b/i,
      /\bNew-Object\s+(?:System\.)?Net\.WebClient\b/i,
      /\[(?:System\.)?Convert\]::FromBase64String\b/i,
    ],
    codeLines: [
      /^\s*\$[a-z_][\w:]*\s*[+\-]?=/i,
      /\b(?:Get|Set|New|Remove|Invoke|Start|Stop|Write|Read|Add|Out|Import|Export|ConvertTo|ConvertFrom|Select|Where|ForEach)-[A-Z][a-zA-Z]+\b/,
      /^\s*param\s*\(/i,
      /\$env:\w+/i,
      /\[[A-Z][\w.]*\]::\w+/,
      /^\s*(?:function|foreach|if|elseif|else|try|catch)\b.*\{\s*$/i,
      /^\s*\}\s*$/,
    ],
  },
  {
    name: 'a VBScript program',
    decisive: [
      /\bCreateObject\s*\(\s*"(?:WScript|Scripting|Shell|MSXML2|ADODB|Microsoft\.XMLHTTP)\b/i,
      /\bWScript\.(?:Shell|Echo|CreateObject|Run|Sleep|Arguments)\b/i,
      /^\s*On\s+Error\s+Resume\s+Next\b/im,
    ],
    codeLines: [
      /^\s*Dim\s+\w+/i,
      /^\s*Set\s+\w+\s*=\s*\w+/i,
      /^\s*(?:Private\s+|Public\s+)?(?:Sub|Function)\s+\w+/i,
      /^\s*End\s+(?:Sub|Function|If|With|Select)\b/i,
      /^\s*(?:If\s+.+\s+Then|Else|ElseIf\s+.+\s+Then|For\s+Each\s+\w+\s+In\b|Next|Loop|Wend)\s*$/i,
      /^\s*'.*$/,
    ],
  },
  {
    name: 'a JavaScript program',
    decisive: [
      /\bnew\s+ActiveXObject\s*\(/i,
      /\brequire\s*\(\s*['"](?:node:)?child_process['"]\s*\)/,
      /\beval\s*\(\s*(?:atob|unescape|String\.fromCharCode|decodeURIComponent)\s*\(/,
    ],
    codeLines: [
      /^\s*(?:var|let|const)\s+[\w${}\[\], ]+=/,
      /^\s*(?:async\s+)?function\s*\*?\s*[\w$]*\s*\(/,
      /=>\s*(?:\{|\(|$)/,
      /^\s*(?:import\s+(?:[\w*{}\s,]+from\s+)?['"]|export\s+(?:default|const|let|function|class|async)\b)/,
      /\b(?:module\.exports|exports\.\w+\s*=|require\s*\(\s*['"])/,
      /\b(?:document|window|console|process)\.[a-zA-Z]+/,
      /^\s*(?:if|for|while|switch)\s*\(.*\)\s*\{?\s*$/,
      /^\s*\}\s*(?:else\b.*)?[;),]*\s*$/,
      /^\s*(?:return\b.*;|\/\/.*)$/,
    ],
  },
];

/**
 * Names the scripting language when the text reads as a program, undefined for documents. Markup and
 * data (HTML, XML, JSON) are only checked for the decisive signs: their lines are not prose.
 */
export function detectScript(text: string, decisiveOnly = false): string | undefined {
  const lines = text
    .split(/\r\n|\n|\r/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, 400);
  if (lines.length === 0) return undefined;
  for (const language of scriptLanguages) {
    if (language.decisive.some((pattern) => pattern.test(text))) return language.name;
    if (decisiveOnly || language.codeLines.length === 0) continue;
    const codeLines = lines.filter((line) => language.codeLines.some((pattern) => pattern.test(line))).length;
    // Mostly code: a document may quote a line or two of a program, a program is made of them. A
    // one-line file needs a decisive match, so "Rem: see attached" stays a note.
    const minimumLines = lines.length >= 3 ? 3 : 2;
    if (codeLines >= minimumLines && codeLines / lines.length >= 0.5) return language.name;
  }
  return undefined;
}
