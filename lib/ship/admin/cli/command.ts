/**
 * What an admin command is: its line in the help, its options and its action, which receives the checked
 * arguments, a way to connect and where to write.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TableId } from '../../../../functions/adapters/runtime/resources.js';
import type { AdminStore } from '../admin-store.js';
import type { Arguments, CommandOptions } from './arguments.js';

export interface AdminOutput {
  /** Results (a created key or secret alone on its own line, for scripts). */
  out(line: string): void;
  /** Everything else: notes, errors. */
  err(line: string): void;
}

export interface Session {
  store: AdminStore;
  where: 'aws' | 'local';
  db: DynamoDBDocumentClient;
  client: DynamoDBClient;
  tables: Record<TableId, string>;
}

export interface Command extends CommandOptions {
  /** The command line after the name, e.g. `--account ID [--quota YUAN]`. */
  args: string;
  summary: string;
  /** More lines for `<command> --help`. */
  details?: string;
  /** Checks the arguments, then calls `open` (which connects) and acts; a number is its exit code (else 0). */
  run(args: Arguments, open: () => Promise<Session>, output: AdminOutput): Promise<void | number>;
}
