import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';

/** Every page of a Query, following LastEvaluatedKey; a caller stops early by leaving its loop. */
export async function* queryPages(client: DynamoDBDocumentClient, input: QueryCommandInput): AsyncGenerator<QueryCommandOutput> {
  let startKey: Record<string, unknown> | undefined = input.ExclusiveStartKey;
  do {
    const page: QueryCommandOutput = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    yield page;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Every item a Query matches, across pages. For bounded result sets (a workspace's keys, workspaces). */
export async function queryAllItems(client: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of queryPages(client, input)) items.push(...(page.Items ?? []));
  return items;
}
