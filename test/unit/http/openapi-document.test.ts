import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../src/http/openapi-document.ts';
import { routes } from '../../../src/manifest/routes.ts';

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document listing every route of the table', async () => {
    const document = buildOpenApiDocument(routes);

    const result = await new Validator().validate(document as Parameters<Validator["validate"]>[0]);

    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    const paths = document.paths as Record<string, Record<string, { operationId: string }>>;
    for (const route of routes) expect(paths[route.path]?.[route.method.toLowerCase()]?.operationId).toBe(route.operationId);
  });

  it('documents page and size as bounded integers and labels as a deep object of strings', () => {
    const document = buildOpenApiDocument(routes);
    const paths = document.paths as Record<string, Record<string, { parameters: Record<string, unknown>[] }>>;
    const parameters = paths['/document-insights/extractions']!.get!.parameters;
    const named = (name: string) => parameters.find((parameter) => parameter.name === name);

    expect(named('page')).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 0, default: 0 } });
    expect(named('size')).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } });
    expect(named('labels')).toMatchObject({
      in: 'query',
      style: 'deepObject',
      explode: true,
      schema: { type: 'object', additionalProperties: { type: 'string' } },
    });
    expect(named('status')).not.toHaveProperty('style');
  });

  it('documents, for every operation, the errors any request can meet, each as the envelope with its request id', () => {
    const document = buildOpenApiDocument(routes);
    const paths = document.paths as Record<string, Record<string, { responses: Record<string, { headers?: Record<string, { required?: boolean }>; content?: Record<string, unknown> }> }>>;

    for (const route of routes) {
      const responses = paths[route.path]![route.method.toLowerCase()]!.responses;
      const common = route.scope === 'public' ? ['400', '405', '406', '413', '500'] : ['400', '401', '403', '405', '406', '413', '429', '500'];
      expect(Object.keys(responses), route.operationId).toEqual(expect.arrayContaining(common));
      for (const [status, response] of Object.entries(responses)) {
        expect(response.headers?.['X-Request-Id']?.required, `${route.operationId} ${status}`).toBe(true);
        if (Number(status) >= 400) expect(response.content?.['application/json'], `${route.operationId} ${status}`).toEqual({ schema: { $ref: '#/components/schemas/ErrorEnvelope' } });
      }
      if (route.scope !== 'public') expect(responses['429']!.content).toHaveProperty(['text/plain']);
    }
  });

  it('marks the Idempotency-Key header and the replay header as extensions, on exactly the five creates', () => {
    const document = buildOpenApiDocument(routes);
    type Operation = { operationId: string; parameters: Record<string, unknown>[]; responses: Record<string, { headers: Record<string, unknown> }> };
    const operations = Object.values(document.paths as Record<string, Record<string, Operation>>).flatMap((path) => Object.values(path));

    const withKey = operations.filter((operation) => operation.parameters.some((parameter) => parameter.name === 'Idempotency-Key'));

    expect(withKey.map((operation) => operation.operationId).sort()).toEqual([
      'createEventSubscription',
      'createExtraction',
      'createFile',
      'startWorkflowRun',
      'uploadExtraction',
    ]);
    for (const operation of withKey) {
      expect(operation.parameters.find((parameter) => parameter.name === 'Idempotency-Key')).toMatchObject({
        in: 'header',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 255 },
        'x-paperflow-extension': true,
      });
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.headers['Idempotent-Replayed'], `${operation.operationId} ${status}`).toMatchObject({ 'x-paperflow-extension': true });
      }
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['409', '422']));
    }
    const others = operations.filter((operation) => !withKey.includes(operation));
    for (const operation of others) expect(Object.values(operation.responses).some((response) => 'Idempotent-Replayed' in response.headers)).toBe(false);
  });

  it('says which parts of the API exist today', () => {
    const { description } = buildOpenApiDocument(routes).info as { description: string };

    expect(description).toMatch(/files/i);
    expect(description).toMatch(/extraction/i);
    expect(description).toMatch(/workflow runs \(start with JSON or multipart input, list, read with steps and nested runs\)/i);
    expect(description).toMatch(/webhook/i);
    expect(description).toMatch(/event subscriptions \(create, list, read, update, delete\)/i);
    expect(description).toMatch(/events with their deliveries/i);
  });
});

describe('OpenAPI document: extensions beyond the spec', () => {
  it('marks an operation whose row says it is an extension, and no other', () => {
    const document = buildOpenApiDocument(routes);
    const paths = document.paths as Record<string, Record<string, Record<string, unknown>>>;

    for (const route of routes) {
      const operation = paths[route.path]![route.method.toLowerCase()]!;
      if (route.extension) {
        expect(operation['x-paperflow-extension'], route.operationId).toBe(true);
        expect(operation.description, route.operationId).toBe(`Extension beyond public API v1: ${route.extension}`);
      } else {
        expect(operation, route.operationId).not.toHaveProperty('x-paperflow-extension');
      }
    }
    expect(paths['/workflow-runs/{runId}/redrive']!.post).toMatchObject({ operationId: 'redriveWorkflowRun', 'x-paperflow-extension': true });
    expect(paths['/workflows/{workflowId}/runs']!.post).not.toHaveProperty('x-paperflow-extension');
  });
});
