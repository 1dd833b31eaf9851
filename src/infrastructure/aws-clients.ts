import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

// Clients are created once per module (reused across invocations). Endpoints come from the SDK's own
// configuration: AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE> point them at LocalStack or the
// embedded emulators, so local runs need no code path of their own.
let documentClient: DynamoDBDocumentClient | undefined;

export function dynamoDocumentClient(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
}
