import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler } from '../../../functions/platform/answer-unmatched-route.ts';
import { anApiGatewayEvent } from '../../support/api-gateway-events.ts';

// Deployed, API Gateway sends here every method a resource does not define and every unknown path.
const context = {} as Context;

describe('the deployed answer to unmatched routes', () => {
  it('answers GET and HEAD on the upload path with 405 and only the upload path\'s methods', async () => {
    for (const httpMethod of ['GET', 'HEAD', 'DELETE']) {
      const response = await handler(anApiGatewayEvent({ httpMethod, path: '/api/public/v1/document-insights/extractions/upload' }, null), context);

      expect(response.statusCode, httpMethod).toBe(405);
      expect(response.headers?.Allow, httpMethod).toBe('POST');
    }
  });

  it('answers 404 for an unknown path whatever its query, with the edge\'s request id', async () => {
    const response = await handler(
      anApiGatewayEvent({ httpMethod: 'GET', path: '/api/public/v1/nowhere', queryStringParameters: { 'labels.customer': 'x', page: '1' } }, null),
      context,
    );

    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body).error.requestId).toBe('req-unit');
    expect(response.headers?.['X-Request-Id']).toBe('req-unit');
  });
});
