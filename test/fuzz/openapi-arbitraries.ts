import fc from 'fast-check';
import type { Operation } from 'openapi-backend';

// fast-check arbitraries for requests to any operation of the OpenAPI document: valid values read from
// the operation's schemas, and the hostile ones a client can send instead. Nothing here names an
// operation, so an operation added to the route table is fuzzed as soon as the document lists it.

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  style?: string;
};

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  style?: string;
  schema?: JsonSchema;
}

/** Identifiers the fuzz knows, by the resource word their path parameter names (extraction, file...). */
export type KnownIdentifiers = Record<string, string[]>;

/** What one generated request is: the parts to send, and who sends it. */
export interface FuzzRequest {
  method: string;
  /** Path below the API base, query included. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Which key sends it: the owner's, the other workspace's, a key without scopes, a bad one, none. */
  caller: 'owner' | 'otherWorkspace' | 'noScopes' | 'badKey' | 'none';
}

/**
 * URLs a generated body may carry. Every host is an address the outbound guard refuses before any
 * connection (documentation ranges, loopback under the strict policy) except `reachable`, the test's
 * own loopback receiver: the fuzz never sends traffic off this machine.
 */
export function urlValues(reachable: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(`${reachable}/document.pdf`),
    fc.constantFrom(
      'https://192.0.2.10/invoice.pdf',
      'https://198.51.100.7/hook',
      'https://[2001:db8::1]/x',
      'http://203.0.113.9/plain-http',
      'https://user:secret@192.0.2.1/creds',
      'https://192.0.2.1/frag#fragment',
      'https://0xC0.0.2.1/hex',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'https://',
      'not a url',
      '',
    ),
  );
}

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) is written as the three bytes a
 * careless client would send for it (WTF-8), a sequence that is not UTF-8.
 */
export function percentEncode(text: string): string {
  let encoded = '';
  for (const character of text) {
    const unit = character.charCodeAt(0);
    if (character.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      encoded += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    } else {
      encoded += encodeURIComponent(character);
    }
  }
  return encoded;
}

const hostileStrings: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\uD800', 'a\uDFFFb', '\u0000', '../../etc/passwd', '%00', '%', '🧾'.repeat(20), ' ', '\t\n', 'null', '__proto__', 'constructor'),
  // Long, yet short enough that a request line carrying it stays under Node's 16 KB head limit.
  fc.integer({ min: 1_000, max: 6_000 }).map((length) => 'x'.repeat(length)),
);

/** A value of `schema`, or, with `hostile`, anything a client could put there instead. */
export function valueOf(schema: JsonSchema | undefined, context: { name: string; urls: fc.Arbitrary<string>; depth: number }): fc.Arbitrary<unknown> {
  if (!schema || context.depth > 4) return fc.jsonValue({ maxDepth: 2 });
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0) return fc.oneof(...alternatives.map((alternative) => valueOf(alternative, context)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      if (/url/i.test(context.name)) return context.urls;
      if (schema.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString());
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 30, 30) }).filter((text) => text.length >= (schema.minLength ?? 0));
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueOf(schema.items, { ...context, depth: context.depth + 1 }), { maxLength: 3 });
    case 'object': {
      const properties = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) shape[name] = valueOf(property, { ...context, name, depth: context.depth + 1 });
      const known = fc.record(shape, { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) });
      const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
      if (!extra) return known;
      return fc
        .tuple(known, fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), valueOf(extra, { ...context, depth: context.depth + 1 }), { maxKeys: 3 }))
        .map(([fixed, free]) => ({ ...free, ...fixed }));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Replaces one node of `value` (by a path drawn from it) with something of the wrong kind. */
const wrongValues: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  hostileStrings,
  fc.double(),
  fc.constant('DEEP'),
  fc.constant('PROTO'),
  fc.constant('y'.repeat(1_000_000)),
);

function mutate(value: unknown, pathChoice: number, replacement: unknown): unknown {
  if (value === null || typeof value !== 'object' || pathChoice === 0) return replacement;
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  if (entries.length === 0) return replacement;
  const [key, child] = entries[pathChoice % entries.length]!;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...value };
  (copy as Record<string, unknown>)[key] = mutate(child, Math.floor(pathChoice / 2), replacement);
  return copy;
}

/** JSON text, where the markers DEEP and PROTO become what JSON.stringify cannot write from a literal. */
function jsonText(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('"DEEP"', `${'{"a":['.repeat(3_000)}1${']}'.repeat(3_000)}`)
    .replaceAll('"PROTO"', '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}');
}

/** A JSON body for `schema`: valid, a mutation of a valid one, or not JSON at all. */
export function jsonBodyOf(schema: JsonSchema | undefined, urls: fc.Arbitrary<string>): fc.Arbitrary<Buffer> {
  const valid = valueOf(schema, { name: '', urls, depth: 0 });
  return fc.oneof(
    { weight: 3, arbitrary: valid.map((value) => Buffer.from(jsonText(value))) },
    {
      weight: 4,
      arbitrary: fc.tuple(valid, fc.nat(64), wrongValues).map(([value, pathChoice, replacement]) => Buffer.from(jsonText(mutate(value, pathChoice, replacement)))),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        Buffer.from('{"document":'),
        Buffer.from(''),
        Buffer.from('null'),
        Buffer.from('[]'),
        Buffer.from('"text"'),
        Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
        Buffer.from('{"a":"\\ud800"}'),
        Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
      ),
    },
  );
}

/** A multipart body from the operation's form schema, and the ways one goes wrong. */
export function multipartBodyOf(schema: JsonSchema | undefined): fc.Arbitrary<{ contentType: string; body: Buffer }> {
  const fieldNames = Object.keys(schema?.properties ?? { file: {} });
  const part = (name: string, content: Buffer | string, options: { fileName?: string; type?: string } = {}) =>
    Buffer.concat([
      Buffer.from(
        `--B\r\nContent-Disposition: form-data; name="${name}"${options.fileName !== undefined ? `; filename="${options.fileName}"` : ''}\r\n` +
          `${options.type ? `Content-Type: ${options.type}\r\n` : ''}\r\n`,
      ),
      Buffer.isBuffer(content) ? content : Buffer.from(content),
      Buffer.from('\r\n'),
    ]);
  const filePart = fc
    .tuple(fc.constantFrom('notes.txt', 'invoice.pdf', '', '../x.sh', 'ä\u0000.txt'), fc.constantFrom('Payment advice: 12.00 EUR\n', '%PDF-1.7 truncated', '#!/bin/sh\nrm -rf /\n', ''))
    .map(([fileName, content]) => part('file', content, { fileName, type: 'application/octet-stream' }));
  const otherPart = (name: string) =>
    fc.oneof(
      fc.constantFrom('{"customer":"acme"}', '{"__proto__":{"x":"1"}}', '[1,2]', 'not json', '').map((text) => part(name, text, { type: 'application/json' })),
      fc.string({ maxLength: 40 }).map((text) => part(name, text)),
    );
  const parts = fc.tuple(
    filePart,
    fc.tuple(...fieldNames.filter((name) => name !== 'file').map((name) => fc.option(otherPart(name), { nil: undefined }))),
    fc.constantFrom('normal', 'missing-file', 'duplicate-file', 'file-first', 'unknown-part', 'huge-text-part'),
  );
  return fc
    .tuple(parts, fc.constantFrom('closed', 'truncated', 'no-closing', 'no-boundary', 'other-boundary', 'empty'), fc.nat(400))
    .map(([[file, others, shape], ending, cut]) => {
      const fields = others.flatMap((value) => (value === undefined ? [] : [Buffer.from(value)]));
      const filePartBytes = Buffer.from(file);
      let sequence: Buffer[] = [...fields, filePartBytes];
      if (shape === 'missing-file') sequence = fields;
      if (shape === 'duplicate-file') sequence = [...fields, filePartBytes, filePartBytes];
      if (shape === 'file-first') sequence = [filePartBytes, ...fields];
      if (shape === 'unknown-part') sequence = [part('surprise', 'x'), ...sequence];
      if (shape === 'huge-text-part') sequence = [part(fieldNames.find((name) => name !== 'file') ?? 'labels', 'y'.repeat(2 * 1024 * 1024)), ...sequence];
      let body = Buffer.concat([...sequence, Buffer.from('--B--\r\n')]);
      if (ending === 'truncated') body = body.subarray(0, Math.min(cut, body.length));
      if (ending === 'no-closing') body = Buffer.concat(sequence);
      if (ending === 'empty') body = Buffer.alloc(0);
      const contentType = ending === 'no-boundary' ? 'multipart/form-data' : ending === 'other-boundary' ? 'multipart/form-data; boundary=Z' : 'multipart/form-data; boundary=B';
      return { contentType, body };
    });
}

/** A query string for the operation's parameters: valid values, wrong ones, unknown and repeated names. */
export function queryOf(parameters: Parameter[], urls: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const queryParameters = parameters.filter((parameter) => parameter.in === 'query');
  const pair = (name: string, value: string) => `${percentEncode(name)}=${percentEncode(value)}`;
  const pairsOf = (parameter: Parameter): fc.Arbitrary<string[]> => {
    if (parameter.style === 'deepObject') {
      return fc.array(
        fc.tuple(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'docType', '')), fc.oneof(fc.string({ maxLength: 10 }), hostileStrings)),
        { maxLength: 3 },
      ).map((entries) => entries.map(([key, value]) => `${percentEncode(parameter.name)}[${percentEncode(key)}]=${percentEncode(value)}`));
    }
    const valid = valueOf(parameter.schema, { name: parameter.name, urls, depth: 0 }).map(String);
    const invalid = fc.oneof(hostileStrings, fc.constantFrom('-1', '1e3', '0x10', '1.5', '99999999999999999999', '', 'true', '2024-13-45T99:00:00Z', 'yesterday'));
    return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: invalid }).map((value) => [pair(parameter.name, value)]);
  };
  const chosen = fc.tuple(...queryParameters.map((parameter) => fc.option(pairsOf(parameter), { nil: undefined, freq: 2 })));
  const extras = fc.array(
    fc.oneof(
      fc.string({ minLength: 1, maxLength: 10 }).map((name) => pair(name, 'x')),
      fc.constantFrom('__proto__[x]=1', 'constructor[prototype][x]=1', 'page', '=', '&&', '%zz=1'),
      queryParameters.length > 0 ? fc.constantFrom(...queryParameters.map((parameter) => `${pair(parameter.name, '1')}&${pair(parameter.name, '2')}`)) : fc.constant('a=1&a=2'),
    ),
    { maxLength: 2 },
  );
  return fc
    .tuple(chosen, fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: extras }))
    .map(([pairs, extra]) => [...pairs.flatMap((value) => value ?? []), ...(extra ?? [])].join('&'));
}

/** A path with its parameters filled: known identifiers (own, other workspace's), well-formed unknown ones, garbage. */
export function pathOf(template: string, known: KnownIdentifiers): fc.Arbitrary<string> {
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const valueFor = (name: string) => {
    const resource = Object.keys(known).find((word) => name.toLowerCase().startsWith(word));
    const ids = resource ? known[resource]! : [];
    return fc.oneof(
      { weight: ids.length > 0 ? 6 : 0, arbitrary: ids.length > 0 ? fc.constantFrom(...ids).map(percentEncode) : fc.constant('x') },
      { weight: 2, arbitrary: fc.stringMatching(/^[a-z]{3,4}_[0-9A-Z]{26}$/) },
      { weight: 2, arbitrary: hostileStrings.map(percentEncode) },
      { weight: 1, arbitrary: fc.constantFrom('%2e%2e', '%2F', '%E0%A4%A', '%', '..', '%00', ';', '*', 'x'.repeat(3_000)) },
    );
  };
  return fc.tuple(...names.map(valueFor)).map((values) => values.reduce<string>((path, value, index) => path.replace(`{${names[index]}}`, value), template));
}

// Mostly requests that pass content negotiation and authentication, so that most reach the handler.
const acceptHeaders = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(undefined, 'application/json', '*/*', 'application/*', 'text/html, application/json;q=0.5') },
  { weight: 2, arbitrary: fc.constantFrom('text/html', 'application/xml', 'application/json;q=0', 'application/problem+json', ';;;', 'text/*, */*;q=0') },
);
const callers = fc.oneof(
  { weight: 12, arbitrary: fc.constant<FuzzRequest['caller']>('owner') },
  { weight: 4, arbitrary: fc.constantFrom<FuzzRequest['caller']>('otherWorkspace', 'noScopes', 'badKey', 'none') },
);
const requestIds = fc.option(fc.oneof(fc.stringMatching(/^[A-Za-z0-9-]{1,40}$/), fc.constantFrom('', 'x'.repeat(200), 'tab\tid', 'é')), { nil: undefined, freq: 3 });

/** Every kind of request to one operation. */
export function requestTo(operation: Operation, known: KnownIdentifiers, urls: fc.Arbitrary<string>): fc.Arbitrary<FuzzRequest> {
  const parameters = (operation.parameters ?? []) as Parameter[];
  const content = ((operation.requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined)?.content ?? {}) as Record<string, { schema?: JsonSchema }>;
  const bodyKinds: fc.Arbitrary<{ contentType?: string; body?: Buffer }>[] = [
    fc.constant({}),
    fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'garbage').map((contentType) => ({ contentType, body: Buffer.from('{"a":1}') })),
  ];
  const weights = bodyKinds.map((arbitrary) => ({ arbitrary, weight: 1 }));
  if (content['application/json']) {
    weights.push({ weight: 6, arbitrary: jsonBodyOf(content['application/json'].schema, urls).map((body) => ({ contentType: 'application/json', body })) });
    weights.push({ weight: 1, arbitrary: jsonBodyOf(content['application/json'].schema, urls).map((body) => ({ body })) });
  }
  if (content['multipart/form-data']) weights.push({ weight: 6, arbitrary: multipartBodyOf(content['multipart/form-data'].schema) });
  return fc
    .record({
      path: pathOf(operation.path, known),
      query: queryOf(parameters, urls),
      body: fc.oneof(...weights),
      accept: acceptHeaders,
      requestId: requestIds,
      caller: callers,
    })
    .map(({ path, query, body, accept, requestId, caller }) => ({
      method: operation.method.toUpperCase(),
      path: query ? `${path}?${query}` : path,
      headers: {
        ...(body.contentType ? { 'content-type': body.contentType } : {}),
        ...(accept ? { accept } : {}),
        ...(requestId !== undefined ? { 'x-request-id': requestId } : {}),
      },
      ...(body.body ? { body: body.body } : {}),
      caller,
    }));
}
