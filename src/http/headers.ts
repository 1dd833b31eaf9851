/** HTTP header names are case-insensitive; API Gateway preserves the client's casing, so normalise. */
export function lowerCaseHeaders(headers: Record<string, string | undefined> | null | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) result[name.toLowerCase()] = value;
  return result;
}
