import { describe, expect, it } from 'vitest';
import { RouteMatcher } from '../../../src/http/route-matching.ts';
import { MethodNotAllowedError, NotFoundError } from '../../../src/platform/errors.ts';
import { errorHeadersOf } from '../../../src/http/error-responses.ts';
import type { RouteDefinition } from '../../../src/platform/route-table.ts';

function route(method: RouteDefinition['method'], path: string): RouteDefinition {
  return { operationId: `${method} ${path}`, method, path, handler: 'x.ts', scope: 'files:read', summary: '', tag: 't', responses: {} };
}

const matcher = new RouteMatcher([
  route('GET', '/things'),
  route('POST', '/things'),
  route('GET', '/things/{thingId}'),
  route('DELETE', '/things/{thingId}'),
  route('POST', '/things/upload'),
]);

describe('route matching', () => {
  it('finds the route and decodes path parameters', () => {
    const match = matcher.match('GET', '/things/a%20b');

    expect(match.route.operationId).toBe('GET /things/{thingId}');
    expect(match.pathParameters).toEqual({ thingId: 'a b' });
  });

  it.each(['/things/.', '/things/./', '/things/..', '/things/../things', '/./things', '/things/%2e', '/things/%2E%2e'])(
    'answers 404 to the dot segments of %s instead of resolving them',
    (path) => {
      expect(() => matcher.match('GET', path)).toThrow(NotFoundError);
    },
  );

  it('takes dots inside a segment as part of it', () => {
    expect(matcher.match('GET', '/things/a.b').pathParameters).toEqual({ thingId: 'a.b' });
    expect(matcher.match('GET', '/things/...').pathParameters).toEqual({ thingId: '...' });
  });

  it('prefers a literal segment over a parameter', () => {
    expect(matcher.match('POST', '/things/upload').route.operationId).toBe('POST /things/upload');
  });

  it('answers 405 with every method the path allows', () => {
    const error = (() => {
      try {
        matcher.match('PATCH', '/things/abc');
      } catch (caught) {
        return caught;
      }
    })();

    expect(error).toBeInstanceOf(MethodNotAllowedError);
    expect(errorHeadersOf(error as MethodNotAllowedError).Allow).toBe('GET, DELETE');
  });

  it('answers 404 for unknown paths and malformed encodings', () => {
    expect(() => matcher.match('GET', '/nothing')).toThrow(NotFoundError);
    expect(() => matcher.match('GET', '/things/a/b')).toThrow(NotFoundError);
    expect(() => matcher.match('GET', '/things/%E0%A4%A')).toThrow(NotFoundError);
  });

  it('answers only with the methods of the most literal path: GET on /things/upload is 405 with Allow: POST', () => {
    const error = (() => {
      try {
        matcher.match('GET', '/things/upload');
      } catch (caught) {
        return caught;
      }
    })();

    expect(error).toBeInstanceOf(MethodNotAllowedError);
    expect(errorHeadersOf(error as MethodNotAllowedError).Allow).toBe('POST');
  });

  it('answers HEAD with the path\'s GET operation, and 405 where there is none', () => {
    expect(matcher.match('HEAD', '/things/abc').route.operationId).toBe('GET /things/{thingId}');
    expect(() => matcher.match('HEAD', '/things/upload')).toThrow(MethodNotAllowedError);
  });

  it('tolerates a trailing slash', () => {
    expect(matcher.match('GET', '/things/').route.operationId).toBe('GET /things');
  });
});
