import { describe, expect, it } from 'vitest';
import { requestIdOf, resolveRequestId } from '../../../src/http/request-id.ts';

describe('request id', () => {
  it('echoes a client value of 1-128 printable characters', () => {
    expect(resolveRequestId('client-trace-42')).toBe('client-trace-42');
    expect(resolveRequestId('x'.repeat(128))).toBe('x'.repeat(128));
  });

  it.each([undefined, '', 'x'.repeat(129), 'has space', 'new\nline', 'ünicode'])('generates one instead of %j', (value) => {
    expect(resolveRequestId(value)).toMatch(/^req_[0-9a-f-]{36}$/);
  });
});

describe('the request id of an event', () => {
  const anEvent = (headers: Record<string, string>, multiValueHeaders: Record<string, string[]>, requestId?: string) =>
    ({ headers, multiValueHeaders, requestContext: requestId === undefined ? {} : { requestId } }) as Parameters<typeof requestIdOf>[0];

  it('is the client\'s acceptable id, whatever the header\'s casing', () => {
    expect(requestIdOf(anEvent({ 'X-Request-ID': 'trace-1' }, {}, 'edge-1'))).toBe('trace-1');
  });

  it.each([
    ['absent', {}, {}],
    ['refused', { 'x-request-id': 'ünicode' }, {}],
    ['sent twice', { 'x-request-id': 'b' }, { 'x-request-id': ['a', 'b'] }],
    ['joined by Node', { 'x-request-id': 'a, b' }, { 'x-request-id': ['a, b'] }],
  ])('is the edge\'s id when the client id is %s', (_case, headers, multiValueHeaders) => {
    expect(requestIdOf(anEvent(headers, multiValueHeaders, 'edge-1'))).toBe('edge-1');
  });

  it('is generated only when the event carries none', () => {
    expect(requestIdOf(anEvent({}, {}))).toMatch(/^req_[0-9a-f-]{36}$/);
  });
});
