/**
 * A write whose condition refusing it is an answer, not a failure (docs/task-lifecycle.md: every state change
 * is a conditional write): false when the item was not in the state the write expects, true when it applied.
 */
import type { DynamoDBDocumentClient, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';

/** The SDK's error for a single write whose ConditionExpression did not hold. */
export function isConditionFailed(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

export async function sendConditional(send: () => Promise<unknown>): Promise<boolean> {
  try {
    await send();
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

export function conditionalUpdate(db: DynamoDBDocumentClient, input: UpdateCommandInput): Promise<boolean> {
  return sendConditional(() => db.send(new UpdateCommand(input)));
}
