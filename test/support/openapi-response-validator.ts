import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';

// Every response the tests get from the API is held to the served OpenAPI document: the operation
// must document the status, the content type must be one the status lists, and the body must match
// its schema. openapi-backend resolves the operation (path templates, $refs); the per-status schemas
// are compiled with ajv's JSON Schema 2020-12 class, the dialect OpenAPI 3.1 and the document use.
// openapi-backend's own definition check is OpenAPI 3.0's, so it is skipped (`quick`): the document's
// validity is asserted by test/unit/http/openapi-document.test.ts with a 3.1 validator.
//
// The schemas are compiled here, not by openapi-backend: it made a new Ajv instance for each operation
// and compiled each of its statuses' schemas, the same error envelope a dozen times over. That was
// about 3 s of a core in every integration file (a third of a small file's CPU). Here one Ajv instance
// compiles each distinct schema once, when a response first needs it.

/** One response as the client saw it. `url` is the full request URL. */
export interface ApiExchange {
  method: string;
  url: string;
  status: number;
  /** The response's Content-Type header, if any. */
  contentType: string | null;
  /** The response's X-Request-Id header, if any. */
  requestId: string | null;
  body: string;
}

export class ResponseContractError extends Error {
  override name = 'ResponseContractError';
}

type JsonSchema = Record<string, unknown>;
interface DocumentedResponse {
  content?: Record<string, { schema?: JsonSchema }>;
}

export class OpenApiResponseValidator {
  private readonly compiler = schemaCompiler();
  private readonly validatorsBySchema = new WeakMap<JsonSchema, ValidateFunction>();
  private readonly validatorsByContent = new Map<string, ValidateFunction>();

  private constructor(
    private readonly backend: OpenAPIBackend,
    private readonly apiRoot: string,
    private readonly errorEnvelope: JsonSchema,
  ) {}

  /** A validator of `document`, the document as served (its first server's path is the API root). */
  static async of(document: Record<string, unknown>): Promise<OpenApiResponseValidator> {
    const apiRoot = apiRootOf(document);
    const backend = new OpenAPIBackend({
      definition: structuredClone(document) as unknown as Document,
      apiRoot,
      quick: true,
    });
    await backend.init();
    const envelope = (backend.definition.components?.schemas as Record<string, JsonSchema> | undefined)?.ErrorEnvelope;
    if (!envelope) throw new Error('The OpenAPI document has no components.schemas.ErrorEnvelope.');
    return new OpenApiResponseValidator(backend, apiRoot, envelope);
  }

  /** Fetches the document the stack serves at `<baseUrl>/openapi.json`. */
  static async served(baseUrl: string): Promise<OpenApiResponseValidator> {
    const response = await fetch(`${baseUrl}/openapi.json`);
    if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}: ${await response.text()}`);
    return OpenApiResponseValidator.of((await response.json()) as Record<string, unknown>);
  }

  /** The operations of the document, for tests that visit each (the fuzz). */
  operations(): Operation[] {
    return this.backend.router.getOperations();
  }

  /** Which operation answers `method` at `url`, if any. */
  operationAt(method: string, url: string): Operation | undefined {
    const path = new URL(url, 'http://localhost').pathname;
    return this.backend.router.matchOperation({ method: method.toLowerCase(), path, headers: {} }) || undefined;
  }

  /** What is wrong with the response, in words; empty when it is what the document says. */
  problemsOf(exchange: ApiExchange): string[] {
    const method = exchange.method.toUpperCase();
    // HEAD is answered as GET, without a body.
    const operation = this.operationAt(method === 'HEAD' ? 'GET' : method, exchange.url);
    const problems: string[] = [];
    if (!exchange.requestId) problems.push('the X-Request-Id header is missing');
    if (!operation) return [...problems, ...this.problemsOfUnmatched(method, exchange)];

    const documented = (operation.responses as Record<string, DocumentedResponse | undefined>)[String(exchange.status)];
    if (!documented) {
      return [...problems, `status ${exchange.status} is not documented (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`];
    }
    if (method === 'HEAD') return problems;
    const mediaType = mediaTypeOf(exchange.contentType);
    const documentedMediaTypes = Object.keys(documented.content ?? {});
    if (documentedMediaTypes.length === 0) {
      if (exchange.body.length > 0) problems.push(`status ${exchange.status} is documented without a body, yet one came (${mediaType ?? 'no content type'})`);
      return problems;
    }
    if (!mediaType || !documentedMediaTypes.includes(mediaType)) {
      return [...problems, `content type ${mediaType ?? '(none)'} is not documented for status ${exchange.status} (documented: ${documentedMediaTypes.join(', ')})`];
    }
    if (mediaType !== 'application/json') return problems;
    const parsed = parseJson(exchange.body);
    if (!parsed.ok) return [...problems, `the body is not JSON: ${parsed.reason}`];
    const schema = documented.content!['application/json']!.schema;
    return schema ? [...problems, ...this.schemaProblems(schema, parsed.value)] : problems;
  }

  /** Throws a ResponseContractError naming the operation, status and every problem. */
  assertDocumented(exchange: ApiExchange): void {
    const problems = this.problemsOf(exchange);
    if (problems.length === 0) return;
    const operation = this.operationAt(exchange.method === 'HEAD' ? 'GET' : exchange.method, exchange.url);
    const path = new URL(exchange.url, 'http://localhost');
    throw new ResponseContractError(
      [
        `The response to ${exchange.method.toUpperCase()} ${path.pathname}${path.search} (${operation?.operationId ?? 'no operation'}) ` +
          `with status ${exchange.status} does not match the served OpenAPI document:`,
        ...problems.map((problem) => `  - ${problem}`),
        `  body: ${exchange.body.slice(0, 800)}`,
      ].join('\n'),
    );
  }

  // A path no operation serves is answered by the gateway: 404, or 405 where another method is served,
  // with the error envelope every operation documents.
  private problemsOfUnmatched(method: string, exchange: ApiExchange): string[] {
    const path = new URL(exchange.url, 'http://localhost').pathname;
    const methodsServed = new Set(this.operations().map((operation) => operation.method));
    const pathServed = [...methodsServed].some((served) => this.operationAt(served, exchange.url) !== undefined);
    const expected = pathServed ? 405 : 404;
    if (exchange.status !== expected) return [`no operation serves ${method} ${path}, so the answer must be ${expected}, not ${exchange.status}`];
    return this.envelopeProblems(exchange);
  }

  private envelopeProblems(exchange: ApiExchange): string[] {
    if (exchange.method.toUpperCase() === 'HEAD') return [];
    if (mediaTypeOf(exchange.contentType) !== 'application/json') return [`an error must be application/json, not ${exchange.contentType ?? '(none)'}`];
    const parsed = parseJson(exchange.body);
    if (!parsed.ok) return [`the body is not JSON: ${parsed.reason}`];
    return this.schemaProblems(this.errorEnvelope, parsed.value);
  }

  private schemaProblems(schema: JsonSchema, value: unknown): string[] {
    let validate = this.validatorsBySchema.get(schema);
    if (!validate) {
      // By content too: the document repeats schemas (the error envelope under every operation's
      // error statuses). No response schema refers to itself; one that did would stop here, at
      // JSON.stringify, rather than pass unchecked.
      const content = JSON.stringify(schema);
      validate = this.validatorsByContent.get(content) ?? this.compiler.compile(schema);
      this.validatorsByContent.set(content, validate);
      this.validatorsBySchema.set(schema, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []).map(describeAjvError);
  }
}

function schemaCompiler(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // CommonJS seen from NodeNext: the plugin is the module's `default` export.
  formatsPlugin.default(ajv);
  return ajv;
}

function apiRootOf(document: Record<string, unknown>): string {
  const servers = document.servers as { url: string }[] | undefined;
  const url = servers?.[0]?.url ?? '/';
  return new URL(url, 'http://localhost').pathname.replace(/\/$/, '');
}

function mediaTypeOf(contentType: string | null): string | null {
  return contentType?.split(';')[0]?.trim().toLowerCase() || null;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

function describeAjvError(error: { instancePath: string; message?: string; params?: unknown }): string {
  return `${error.instancePath || '(body)'} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params ?? {})}`;
}
