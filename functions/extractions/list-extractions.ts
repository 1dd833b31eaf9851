import { httpHandler } from '../../src/http/http-handler.ts';
import { pageOf } from '../../src/platform/pagination.ts';
import { listExtractionsRoute } from '../../src/extractions/routes.ts';
import { extractionService } from '../../src/composition/extractions.ts';
import { listQueryOf } from '../../src/extractions/extraction-list-query.ts';

export const handler = httpHandler(listExtractionsRoute, async ({ principal, query }) => {
  const listQuery = listQueryOf(query);
  const { data, totalItems } = await extractionService().listExtractions(principal.workspaceId, listQuery);
  return { status: 200, body: pageOf(data, listQuery, totalItems) };
});
