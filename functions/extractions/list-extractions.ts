import { httpHandler } from '../../src/http/http-handler.ts';
import { pageOf } from '../../src/http/pagination.ts';
import { extractionRoutes } from '../../src/extractions/routes.ts';
import { extractionService } from '../../src/extractions/wiring.ts';
import { listQueryOf, type ListExtractionsQueryParameters } from '../../src/extractions/extraction-list-query.ts';

const route = extractionRoutes.find((candidate) => candidate.operationId === 'listExtractions')!;

export const handler = httpHandler<unknown, ListExtractionsQueryParameters>(route, async ({ principal, query }) => {
  const listQuery = listQueryOf(query);
  const { data, totalItems } = await extractionService().listExtractions(principal.workspaceId, listQuery);
  return { status: 200, body: pageOf(data, listQuery, totalItems) };
});
