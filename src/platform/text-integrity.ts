/// <reference lib="es2024.string" />

// One rule for every string a client sends, in a body or a query: it must be text that can be stored
// and returned as sent. A lone surrogate (JSON may write one as "\ud800") has no UTF-8 encoding: stores
// and responses would turn it into something else. U+FFFD is what a decoder (Node's, API Gateway's)
// leaves where the bytes sent were not UTF-8 (`%FF`, or `%ED%A0%80`, a surrogate encoded anyway): the
// string then no longer holds what the client meant, and no layer after the decoding can tell a
// genuine U+FFFD from one. Both are refused, by the HTTP layer, before any operation sees them.

/** Why `text` is not intact text, or undefined when it is. */
export function textDefectOf(text: string): string | undefined {
  if (!text.isWellFormed()) return 'must be well-formed Unicode; it holds a lone surrogate';
  if (text.includes('\uFFFD')) return 'must be well-formed Unicode; it holds U+FFFD, left where the bytes sent were not UTF-8';
  return undefined;
}

export interface TextDefect {
  /** Keys and indexes from the root to the string (an object key is reported at its own path). */
  path: (string | number)[];
  defect: string;
}

/** Enough to show a client what is wrong; a body made of nothing but defects gets a bounded answer. */
export const maximumDefectsReported = 20;

interface PendingValue {
  value: unknown;
  /** The value's key in its parent, linked rather than copied: a path is built only for a defect. */
  step?: { key: string | number; parent: PendingValue };
}

/**
 * Every string of a parsed JSON value, object keys included, that is not intact text. Walks with a
 * stack of its own and builds no path until it finds a defect: a deeply nested body must be answered,
 * neither overflow the call stack nor take time growing with the square of its depth.
 */
export function textDefectsIn(value: unknown): TextDefect[] {
  const defects: TextDefect[] = [];
  const pending: PendingValue[] = [{ value }];
  while (pending.length > 0 && defects.length < maximumDefectsReported) {
    const current = pending.pop()!;
    const node = current.value;
    if (typeof node === 'string') {
      const defect = textDefectOf(node);
      if (defect) defects.push({ path: pathOf(current), defect });
    } else if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) pending.push({ value: node[index], step: { key: index, parent: current } });
    } else if (node !== null && typeof node === 'object') {
      const children: PendingValue[] = [];
      for (const [key, child] of Object.entries(node)) {
        const keyDefect = textDefectOf(key);
        if (keyDefect) defects.push({ path: [...pathOf(current), key], defect: `as a key ${keyDefect}` });
        else children.push({ value: child, step: { key, parent: current } });
      }
      for (let index = children.length - 1; index >= 0; index--) pending.push(children[index]!);
    }
  }
  return defects;
}

function pathOf(pending: PendingValue): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: PendingValue | undefined = pending; at?.step; at = at.step.parent) path.push(at.step.key);
  return path.reverse();
}
