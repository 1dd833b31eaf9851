import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../src/http/openapi-document.ts';
import { routes } from '../../../src/manifest/routes.ts';

// The five subscription operations are generated from their rows, with the schemas the handlers answer.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const document = buildOpenApiDocument(routes) as any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const jsonSchemaOf = (content: any) => content?.['application/json']?.schema;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const resolved = (schema: any) => (schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema);

describe('OpenAPI: event subscriptions', () => {
  it('lists the five operations', () => {
    expect(Object.keys(document.paths['/event-subscriptions']).filter((key) => key !== 'parameters').sort()).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(document.paths['/event-subscriptions/{subscriptionId}'])).toEqual(expect.arrayContaining(['get', 'patch', 'delete']));
  });

  it('shows the signing secret in the create answer only', () => {
    const created = resolved(jsonSchemaOf(document.paths['/event-subscriptions'].post.responses['201'].content));
    const read = resolved(jsonSchemaOf(document.paths['/event-subscriptions/{subscriptionId}'].get.responses['200'].content));
    const updated = resolved(jsonSchemaOf(document.paths['/event-subscriptions/{subscriptionId}'].patch.responses['200'].content));

    expect(created.properties).toHaveProperty('signingSecret');
    expect(read.properties).not.toHaveProperty('signingSecret');
    expect(updated.properties).not.toHaveProperty('signingSecret');
    expect(Object.keys(read.properties).sort()).toEqual(['createdAt', 'endpointUrl', 'eventTypes', 'filters', 'id', 'name', 'status', 'updatedAt']);
  });

  it('documents strict request bodies and the list parameters', () => {
    const createBody = resolved(jsonSchemaOf(document.paths['/event-subscriptions'].post.requestBody.content));
    const patchBody = resolved(jsonSchemaOf(document.paths['/event-subscriptions/{subscriptionId}'].patch.requestBody.content));
    const parameters = document.paths['/event-subscriptions'].get.parameters.map((parameter: { name: string }) => parameter.name);

    expect(createBody).toMatchObject({ additionalProperties: false, required: ['name', 'endpointUrl', 'eventTypes'] });
    expect(patchBody.additionalProperties).toBe(false);
    expect(patchBody.properties).not.toHaveProperty('signingSecret');
    expect(parameters.sort()).toEqual(['eventType', 'from', 'name', 'page', 'size', 'sort', 'sortBy', 'status', 'to']);
    expect(document.paths['/event-subscriptions/{subscriptionId}'].delete.responses).toHaveProperty('204');
  });
});
