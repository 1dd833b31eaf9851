/**
 * Objects whose keys come from callers (labels, and event data that carries them), shaped for the
 * DynamoDB document client. Its marshaller tells a plain object from a class instance by
 * `value.constructor`, so a label named "constructor" made it refuse the whole item. A Map has no
 * such ambiguity and is stored as the same map attribute (M), so reads are unchanged.
 */
export function asDynamoMap(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asDynamoMap);
  if (value === null || typeof value !== 'object' || !isPlainObject(value)) return value;
  return new Map(Object.entries(value).map(([key, entry]) => [key, asDynamoMap(entry)]));
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
