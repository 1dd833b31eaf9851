/**
 * HTTP header names are case-insensitive; API Gateway preserves the client's casing, so normalise.
 * The map has no prototype: a header the client names `__proto__` or `constructor` is just a header.
 */
export function lowerCaseHeaders(headers: Record<string, string | undefined> | null | undefined): Record<string, string> {
  const result: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) result[name.toLowerCase()] = value;
  return result;
}

/**
 * Every value of one header, case-insensitively: from API Gateway's multiValueHeaders where present
 * (it keeps repeated headers apart there, and its `headers` holds only the last), else from `headers`.
 */
export function headerValuesOf(
  event: { headers?: Record<string, string | undefined> | null; multiValueHeaders?: Record<string, string[] | undefined> | null },
  lowerCaseName: string,
): string[] {
  const named = <T>(headers: Record<string, T | undefined> | null | undefined) =>
    Object.entries(headers ?? {}).filter(([name, value]) => name.toLowerCase() === lowerCaseName && value !== undefined).map(([, value]) => value as T);
  const multiValues = named(event.multiValueHeaders).flat();
  return multiValues.length > 0 ? multiValues : named(event.headers);
}
