/**
 * One item by its key, strongly consistent: every read that decides something must see the last write
 * (docs/security.md reads a key this way). `projection` reads only the attributes named.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';

export async function getItem<T>(
  db: DynamoDBDocumentClient,
  table: string,
  key: Record<string, string>,
  projection?: string,
): Promise<T | undefined> {
  const { Item } = await db.send(
    new GetCommand({
      TableName: table,
      Key: key,
      ConsistentRead: true,
      ...(projection && { ProjectionExpression: projection }),
    }),
  );
  return Item as T | undefined;
}
