import { beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../src/http/openapi-document.ts';
import { routes } from '../../../src/manifest/routes.ts';
import { OpenApiResponseValidator, ResponseContractError, type ApiExchange } from '../../support/openapi-response-validator.ts';

// The check every integration test's responses go through (test/support/local-stack-harness.ts): it
// must catch a response that strays from the document, or the integration suite proves nothing.
let validator: OpenApiResponseValidator;
const base = 'http://127.0.0.1:1/api/public/v1';
const extractionId = 'ext_01J00000000000000000000000';

beforeAll(async () => {
  validator = await OpenApiResponseValidator.of(buildOpenApiDocument(routes));
});

function exchange(overrides: Partial<ApiExchange> & { bodyJson?: unknown }): ApiExchange {
  const { bodyJson, ...rest } = overrides;
  return {
    method: 'GET',
    url: `${base}/document-insights/extractions/${extractionId}`,
    status: 200,
    contentType: 'application/json; charset=utf-8',
    requestId: 'req_1',
    body: bodyJson === undefined ? '' : JSON.stringify(bodyJson),
    ...rest,
  };
}

const queuedExtraction = {
  id: extractionId,
  status: 'QUEUED',
  outputAvailable: false,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
  labels: {},
  document: { fileId: 'file_01J00000000000000000000000' },
};

const notFound = { error: { code: 'NOT_FOUND', message: 'No such extraction.', requestId: 'req_1', retryable: false } };

describe('OpenAPI response validation', () => {
  it('passes a response the document describes', () => {
    expect(validator.problemsOf(exchange({ bodyJson: queuedExtraction }))).toEqual([]);
    expect(validator.problemsOf(exchange({ status: 404, bodyJson: notFound }))).toEqual([]);
    expect(validator.problemsOf(exchange({ method: 'DELETE', status: 204, contentType: null }))).toEqual([]);
  });

  it('catches a field of the wrong type', () => {
    const problems = validator.problemsOf(exchange({ bodyJson: { ...queuedExtraction, outputAvailable: 'no' } }));

    expect(problems.join('\n')).toMatch(/\/outputAvailable must be boolean/);
  });

  it('catches a missing required field', () => {
    const { status: _status, ...withoutStatus } = queuedExtraction;

    expect(validator.problemsOf(exchange({ bodyJson: withoutStatus })).join('\n')).toMatch(/must have required property 'status'/);
  });

  it('catches a property the document does not list', () => {
    expect(validator.problemsOf(exchange({ bodyJson: { ...queuedExtraction, internalState: 'x' } })).join('\n')).toMatch(/additional properties.*internalState/);
  });

  it('catches a status the operation does not document', () => {
    expect(validator.problemsOf(exchange({ status: 201, bodyJson: queuedExtraction }))).toEqual([
      expect.stringMatching(/^status 201 is not documented \(documented: 200, .*404/),
    ]);
  });

  it('catches an error body that is not the envelope', () => {
    const problems = validator.problemsOf(exchange({ status: 404, bodyJson: { message: 'not found' } }));

    expect(problems.join('\n')).toMatch(/must have required property 'error'/);
  });

  it('catches an undocumented content type, a body where none is documented, no JSON and no request id', () => {
    expect(validator.problemsOf(exchange({ contentType: 'text/html', body: '<p>hi</p>' }))).toEqual([expect.stringMatching(/content type text\/html is not documented/)]);
    expect(validator.problemsOf(exchange({ method: 'DELETE', status: 204, body: '{}' }))).toEqual([expect.stringMatching(/documented without a body/)]);
    expect(validator.problemsOf(exchange({ body: '{"id":' }))).toEqual([expect.stringMatching(/not JSON/)]);
    expect(validator.problemsOf(exchange({ requestId: null, bodyJson: queuedExtraction }))).toEqual(['the X-Request-Id header is missing']);
  });

  it('accepts the edge\'s plain-text 429 only where the document lists it', () => {
    expect(validator.problemsOf(exchange({ status: 429, contentType: 'text/plain; charset=utf-8', body: 'Too Many Requests' }))).toEqual([]);
    expect(validator.problemsOf(exchange({ status: 404, contentType: 'text/plain', body: 'Not Found' }))).not.toEqual([]);
  });

  it('holds paths no operation serves to the gateway\'s 404 and 405 envelopes', () => {
    expect(validator.problemsOf(exchange({ url: `${base}/nowhere`, status: 404, bodyJson: notFound }))).toEqual([]);
    expect(validator.problemsOf(exchange({ method: 'PUT', status: 405, bodyJson: { ...notFound, error: { ...notFound.error, code: 'METHOD_NOT_ALLOWED' } } }))).toEqual([]);
    expect(validator.problemsOf(exchange({ url: `${base}/nowhere`, status: 200, bodyJson: {} }))).toEqual([expect.stringMatching(/must be 404, not 200/)]);
    expect(validator.problemsOf(exchange({ method: 'PUT', status: 404, bodyJson: notFound }))).toEqual([expect.stringMatching(/must be 405, not 404/)]);
  });

  it('throws an error naming the request, the operation, the status and each problem', () => {
    const wrong = exchange({ status: 200, bodyJson: { ...queuedExtraction, status: 'DONE', labels: [] } });

    expect(() => validator.assertDocumented(wrong)).toThrow(ResponseContractError);
    expect(() => validator.assertDocumented(wrong)).toThrow(
      /GET \/api\/public\/v1\/document-insights\/extractions\/ext_\w+ \(getExtraction\) with status 200[^]*\/status must be equal to one of the allowed values[^]*\/labels must be object/,
    );
  });

  it('lists every operation of the document', () => {
    expect(validator.operations().map((operation) => operation.operationId).sort()).toEqual(routes.map((route) => route.operationId).sort());
  });
});
