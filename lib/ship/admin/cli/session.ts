/**
 * Connects a command to its target: the running local stack, or AWS. Everything it needs (the AWS SDK, the
 * store, the target's resolution) is imported here, when a command runs: help and bad arguments need none.
 */
import { REPOSITORY_ROOT } from '../../repository-root.js';
import type { Session } from './command.js';

/** The session, and `destroy`, which closes its client. */
export async function openSession(): Promise<{ session: Session; destroy: () => void }> {
  const [{ ownDocumentClient }, { AdminStore }, { resolveAdminTarget }, localAws] = await Promise.all([
    import('../../../../functions/adapters/dynamodb/client.js'),
    import('../admin-store.js'),
    import('../target.js'),
    import('../../sam-local/local-aws.js'),
  ]);
  const target = resolveAdminTarget(REPOSITORY_ROOT);
  const own = ownDocumentClient(
    target.where === 'local'
      ? {
          endpoint: target.dynamodbEndpoint,
          region: localAws.LOCAL_REGION,
          credentials: localAws.LOCAL_CREDENTIALS,
        }
      : {},
  );
  const { db, client } = own;
  return {
    session: { store: new AdminStore(db, target.tables), where: target.where, db, client, tables: target.tables },
    destroy: own.destroy,
  };
}
