/** `k=v, k2=` as typed by the user: label pairs (an empty value, as a list filter, means "has the label"). */
export function labelPairsOf(text: string): [string, string][] {
  return text
    .split(',')
    .map((pair) => pair.trim())
    .filter((pair) => pair.length > 0)
    .map((pair) => {
      const separator = pair.indexOf('=');
      return separator === -1 ? [pair, ''] : [pair.slice(0, separator).trim(), pair.slice(separator + 1).trim()];
    });
}
