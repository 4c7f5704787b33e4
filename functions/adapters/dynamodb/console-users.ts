/**
 * Console sign-ins in DynamoDB (docs/console.md): one item per Cognito user, `sub` → `account_id`. A first sign-in
 * opens the account (balance 0, so no ledger entry) and the link in one transaction, each conditional on
 * not existing: two first requests at once open one account, the other finds the winner's link.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ConsoleUser, ConsoleUserRepository } from '../../core/ports/console.js';
import { getItem } from './consistent-read.js';
import { conditionFailedAt } from './transaction-cancellation.js';

export class DynamoDbConsoleUsers implements ConsoleUserRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: { consoleUsers: string; accounts: string },
  ) {}

  find(sub: string): Promise<ConsoleUser | undefined> {
    return getItem(this.db, this.tables.consoleUsers, { sub });
  }

  async openAccount(user: ConsoleUser): Promise<ConsoleUser> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tables.consoleUsers,
                Item: user,
                ConditionExpression: 'attribute_not_exists(#sub)',
                ExpressionAttributeNames: { '#sub': 'sub' },
              },
            },
            {
              Put: {
                TableName: this.tables.accounts,
                Item: { account_id: user.account_id, balance_units: 0, created_at: user.created_at },
                ConditionExpression: 'attribute_not_exists(account_id)',
              },
            },
          ],
        }),
      );
      return user;
    } catch (error) {
      const linked = conditionFailedAt(error, 0) && (await this.find(user.sub));
      if (linked) return linked;
      throw error;
    }
  }
}

/**
 * Links a Cognito user to an existing account (the operator's `account:invite`, the local demo login);
 * refuses to move a user that is linked already.
 */
export async function linkConsoleUser(db: DynamoDBDocumentClient, table: string, user: ConsoleUser): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: table,
      Item: user,
      ConditionExpression: 'attribute_not_exists(#sub) OR account_id = :account',
      ExpressionAttributeNames: { '#sub': 'sub' },
      ExpressionAttributeValues: { ':account': user.account_id },
    }),
  );
}
