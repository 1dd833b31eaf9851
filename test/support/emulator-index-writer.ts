// A child process for local-dynalite-durability.test.ts: the local stack's emulators on the data folder
// named by argv[2], a table with two global secondary indexes, and eight items whose index keys change
// on every write (as an extraction's updatedAt and status do), written until the process is killed.
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { startEmulators } from '../../src/local/emulators.ts';

const indexWriterTable = 'index-writer';

const emulators = await startEmulators(process.argv[2]!);
const client = new DynamoDBClient({ endpoint: emulators.endpoints.dynamodb, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
await client.send(
  new CreateTableCommand({
    TableName: indexWriterTable,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: ['pk', 'gsi1pk', 'gsi1sk', 'gsi2pk'].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    GlobalSecondaryIndexes: [
      { IndexName: 'gsi1', KeySchema: [{ AttributeName: 'gsi1pk', KeyType: 'HASH' }, { AttributeName: 'gsi1sk', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } },
      { IndexName: 'gsi2', KeySchema: [{ AttributeName: 'gsi2pk', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } },
    ],
  }),
);
while ((await client.send(new DescribeTableCommand({ TableName: indexWriterTable }))).Table?.TableStatus !== 'ACTIVE') {
  await new Promise((resolve) => setTimeout(resolve, 10));
}
process.stdout.write('writing\n');
for (let round = 0; ; round += 1) {
  await Promise.all(
    Array.from({ length: 8 }, (_, index) => {
      const version = `v${String(round).padStart(8, '0')}`;
      // PutItem and UpdateItem each change the item's entries in both indexes.
      return round % 2 === 0
        ? client.send(new PutItemCommand({ TableName: indexWriterTable, Item: { pk: { S: `item${index}` }, gsi1pk: { S: 'all' }, gsi1sk: { S: `${version}#${index}` }, gsi2pk: { S: `${version}#${index}` } } }))
        : client.send(
            new UpdateItemCommand({
              TableName: indexWriterTable,
              Key: { pk: { S: `item${index}` } },
              UpdateExpression: 'SET gsi1sk = :sk, gsi2pk = :sk',
              ExpressionAttributeValues: { ':sk': { S: `${version}#${index}` } },
            }),
          );
    }),
  );
}
