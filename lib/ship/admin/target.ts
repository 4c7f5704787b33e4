/**
 * Where the admin CLI acts: on AWS when the table names are in the environment (with the usual AWS
 * credentials), otherwise on the running local stack, found through the file `npm start` writes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { physicalNames, TABLES } from '../../../functions/adapters/runtime/resources.js';
import type { TableId } from '../../../functions/adapters/runtime/resources.js';
import { TargetError } from './errors.js';

export function runtimeFile(dataDir: string): string {
  return join(dataDir, 'local-stack.json');
}

export interface AdminTarget {
  where: 'aws' | 'local';
  tables: Record<TableId, string>;
  dynamodbEndpoint?: string;
}

export function resolveAdminTarget(repositoryRoot: string): AdminTarget {
  if (process.env[TABLES.accounts.envVar]) {
    const tables = Object.fromEntries(
      Object.entries(TABLES).map(([id, definition]) => [id, process.env[definition.envVar] ?? '']),
    ) as Record<TableId, string>;
    const missing = Object.entries(TABLES).filter(([id]) => !tables[id as TableId]);
    if (missing.length > 0) {
      throw new TargetError(
        `set ${missing.map(([, definition]) => definition.envVar).join(', ')} too (the stack's outputs)`,
      );
    }
    return { where: 'aws', tables };
  }
  if (process.env['TABLE_PREFIX']) return { where: 'aws', tables: physicalNames(process.env['TABLE_PREFIX']).tables };
  const file = runtimeFile(resolve(repositoryRoot, process.env['DATA_DIR'] ?? '.data'));
  if (!existsSync(file)) {
    throw new TargetError(
      'no running local stack found: start it with `npm start`, or for AWS set TABLE_PREFIX (or the *_TABLE variables)',
    );
  }
  const runtime = JSON.parse(readFileSync(file, 'utf8')) as {
    endpoints: { dynamodb: string };
    names: ReturnType<typeof physicalNames>;
  };
  return { where: 'local', tables: runtime.names.tables, dynamodbEndpoint: runtime.endpoints.dynamodb };
}
