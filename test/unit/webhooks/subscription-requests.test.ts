import { describe, expect, it } from 'vitest';
import type { $ZodType as ZodType } from 'zod/v4/core';
import { validateWith } from '../../../src/http/http-handler.ts';
import { ValidationError, type ValidationIssue } from '../../../src/platform/errors.ts';
import { createSubscriptionRequestSchema, updateSubscriptionRequestSchema } from '../../../src/webhooks/subscription-requests.ts';

// The request rules as the API applies them: the route's schema through the handlers' validation,
// which turns every issue into a 422 detail naming the field as sent.

const aSubscription = (overrides: Record<string, unknown> = {}) => ({
  name: 'Order system',
  endpointUrl: 'https://hooks.example.com/paperflow',
  eventTypes: ['document-insights.extraction.completed'],
  ...overrides,
});

function issuesOf(schema: ZodType, body: unknown): ValidationIssue[] {
  try {
    validateWith(schema, body, (issues) => new ValidationError(issues));
  } catch (error) {
    if (error instanceof ValidationError) return error.details;
    throw error;
  }
  return [];
}

const fieldsOf = (issues: ValidationIssue[]) => issues.map((issue) => issue.field);

// What the URL text decides in any deployment is the schema's; https only and no private address is the
// deployment's policy, checked by the subscription service (subscription-service.test.ts).

describe('create', () => {
  it('accepts a subscription with every event type and a workflow filter', () => {
    const body = aSubscription({
      eventTypes: ['document-insights.extraction.completed', 'document-insights.extraction.failed', 'document-insights.extraction.rejected', 'workflow.run.completed', 'workflow.run.failed'],
      filters: { workflowId: 'wf_01JZ0000000000000000000000' },
    });

    expect(issuesOf(createSubscriptionRequestSchema, body)).toEqual([]);
  });

  it.each([
    ['another scheme', 'ftp://hooks.example.com/x', 'must use https'],
    ['credentials', 'https://user:pass@hooks.example.com/x', 'must not contain user credentials'],
    ['a fragment', 'https://hooks.example.com/x#part', 'must not contain a fragment'],
    ['no URL', 'hooks.example.com', 'must be an absolute URL'],
    ['a URL over 2048 characters', `https://hooks.example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
  ])('refuses an endpointUrl with %s', (_case, endpointUrl, issue) => {
    expect(issuesOf(createSubscriptionRequestSchema, aSubscription({ endpointUrl }))).toEqual([{ field: 'endpointUrl', issue }]);
  });

  it('leaves http and private addresses to the deployment\'s policy, which the service applies', () => {
    expect(issuesOf(createSubscriptionRequestSchema, aSubscription({ endpointUrl: 'http://127.0.0.1:9999/hooks' }))).toEqual([]);
    expect(issuesOf(createSubscriptionRequestSchema, aSubscription({ endpointUrl: 'http://169.254.169.254/latest' }))).toEqual([]);
  });

  it.each([
    ['empty', '', 'must not be blank'],
    ['blank', '   ', 'must not be blank'],
    ['over 128 characters', 'n'.repeat(129), 'must be at most 128 characters'],
  ])('refuses a name that is %s', (_case, name, issue) => {
    expect(issuesOf(createSubscriptionRequestSchema, aSubscription({ name }))).toEqual([{ field: 'name', issue }]);
  });

  it('counts the name in characters, not UTF-16 units', () => {
    expect(issuesOf(createSubscriptionRequestSchema, aSubscription({ name: '😀'.repeat(128) }))).toEqual([]);
    expect(fieldsOf(issuesOf(createSubscriptionRequestSchema, aSubscription({ name: '😀'.repeat(129) })))).toEqual(['name']);
  });

  it.each([
    ['empty', [], 'eventTypes'],
    ['an unknown type', ['document-insights.extraction.completed', 'extraction.done'], 'eventTypes[1]'],
    ['a type twice', ['workflow.run.failed', 'workflow.run.failed'], 'eventTypes[1]'],
    ['not a list', 'workflow.run.failed', 'eventTypes'],
  ])('refuses eventTypes that are %s', (_case, eventTypes, field) => {
    expect(fieldsOf(issuesOf(createSubscriptionRequestSchema, aSubscription({ eventTypes })))).toEqual([field]);
  });

  it.each([
    ['a workflowId that is not a string', { workflowId: 42 }, 'filters.workflowId'],
    ['an empty workflowId', { workflowId: '' }, 'filters.workflowId'],
    ['another key', { extractionId: 'ext_1' }, 'filters.extractionId'],
    ['not an object', 'wf_1', 'filters'],
  ])('refuses filters with %s', (_case, filters, field) => {
    expect(fieldsOf(issuesOf(createSubscriptionRequestSchema, aSubscription({ filters })))).toEqual([field]);
  });

  it.each(['signingSecret', 'status', 'id', 'createdAt', 'secret'])('refuses the unknown field %s by name', (field) => {
    expect(issuesOf(createSubscriptionRequestSchema, aSubscription({ [field]: 'x' }))).toEqual([{ field, issue: 'is not an accepted field' }]);
  });

  it('names every missing field, and every problem of a body at once', () => {
    expect(fieldsOf(issuesOf(createSubscriptionRequestSchema, {})).sort()).toEqual(['endpointUrl', 'eventTypes', 'name']);
    expect(fieldsOf(issuesOf(createSubscriptionRequestSchema, { name: '', endpointUrl: 'ftp://x.example', eventTypes: [], extra: 1 })).sort()).toEqual([
      'endpointUrl',
      'eventTypes',
      'extra',
      'name',
    ]);
  });
});

describe('update', () => {
  it.each([{ name: 'Renamed' }, { status: 'paused' }, { status: 'active' }, { filters: {} }, { endpointUrl: 'https://other.example.com/h' }, { eventTypes: ['workflow.run.failed'] }])(
    'accepts %j',
    (body) => {
      expect(issuesOf(updateSubscriptionRequestSchema, body)).toEqual([]);
    },
  );

  it('refuses an empty change', () => {
    expect(issuesOf(updateSubscriptionRequestSchema, {})).toEqual([{ field: '', issue: 'must change at least one of name, endpointUrl, eventTypes, filters, status' }]);
  });

  it.each(['signingSecret', 'id', 'createdAt', 'updatedAt', 'workspaceId'])('refuses %s in the body, with the change beside it', (field) => {
    expect(issuesOf(updateSubscriptionRequestSchema, { name: 'Renamed', [field]: 'whsec_x' })).toEqual([{ field, issue: 'is not an accepted field' }]);
  });

  it.each([
    [{ status: 'disabled' }, 'status'],
    [{ name: null }, 'name'],
    [{ endpointUrl: 'https://user@hooks.example.com/h' }, 'endpointUrl'],
    [{ eventTypes: [] }, 'eventTypes'],
  ])('applies the create rules to %j', (body, field) => {
    expect(fieldsOf(issuesOf(updateSubscriptionRequestSchema, body))).toEqual([field]);
  });
});
