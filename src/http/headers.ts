/**
 * HTTP header names are case-insensitive; API Gateway preserves the client's casing, so normalise.
 * The map has no prototype: a header the client names `__proto__` or `constructor` is just a header.
 */
export function lowerCaseHeaders(headers: Record<string, string | undefined> | null | undefined): Record<string, string> {
  const result: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) result[name.toLowerCase()] = value;
  return result;
}
