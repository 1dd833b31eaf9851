// File names come from clients and travel on to downloads (Content-Disposition), logs and other
// systems, so they are cleaned: no control characters, no path separators, no bidirectional overrides
// that disguise an extension, bounded length. What remains stays readable: separators become "_"
// rather than vanishing, so "reports/2024/q1.pdf" keeps its meaning as "reports_2024_q1.pdf".

export const maximumFileNameLength = 255;
const maximumExtensionLength = 16;

// C0 and C1 controls and DEL, plus the Unicode format characters that reorder or hide text.
const invisibleOrControl = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const whitespaceControls = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;
const pathSeparators = /[/\\]+/g;

/** The cleaned name, or undefined when nothing readable is left. */
export function cleanFileName(raw: string): string | undefined {
  const cleaned = raw
    .normalize('NFC')
    .replace(whitespaceControls, ' ')
    .replace(invisibleOrControl, '')
    .replace(pathSeparators, '_')
    .replace(/\s+/g, ' ')
    // Leading dots would make a hidden file or a relative path segment; trailing dots and spaces are
    // dropped by Windows and would change the extension seen there.
    .replace(/^[\s.]+/, '')
    .replace(/[\s.]+$/, '');
  if (cleaned === '' || /^_+$/.test(cleaned)) return undefined;
  return capLength(cleaned);
}

/** Shortens the stem, not the extension, so "very long name….pdf" stays a ".pdf". */
function capLength(name: string): string {
  const characters = [...name];
  if (characters.length <= maximumFileNameLength) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot) : '';
  if (extension.length > 1 && [...extension].length <= maximumExtensionLength) {
    const stem = [...name.slice(0, dot)].slice(0, maximumFileNameLength - [...extension].length);
    return `${stem.join('').trimEnd()}${extension}`;
  }
  return characters.slice(0, maximumFileNameLength).join('').trimEnd();
}
