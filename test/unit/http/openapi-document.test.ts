import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../src/http/openapi-document.ts';
import { routes } from '../../../src/http/routes.ts';

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
});
