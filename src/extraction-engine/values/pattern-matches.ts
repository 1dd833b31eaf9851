// String.prototype.matchAll clones its pattern on every call (the iterator needs a private copy), and
// the engine runs about a hundred country, currency and date patterns over every line of a document:
// the clones alone made the garbage collector the largest cost of the text-PDF path. These helpers
// run a global pattern in place, from lastIndex 0, and give every match at once.

/** Every match of a global (`g`) pattern in `text`, as matchAll gives them, without cloning the pattern. */
export function matchesOf(pattern: RegExp, text: string): RegExpExecArray[] {
  const matches: RegExpExecArray[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    matches.push(match);
    // An empty match would be found again at the same place: step over it, by a whole code point
    // where the pattern reads code points (the `u` and `v` flags), as matchAll does.
    if (match[0] === '') pattern.lastIndex = nextIndex(text, pattern.lastIndex, pattern.unicode || pattern.flags.includes('v'));
  }
  pattern.lastIndex = 0;
  return matches;
}

function nextIndex(text: string, index: number, byCodePoint: boolean): number {
  if (!byCodePoint || index + 1 >= text.length) return index + 1;
  const unit = text.charCodeAt(index);
  return unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00 ? index + 2 : index + 1;
}
