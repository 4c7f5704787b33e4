/**
 * The admin CLI's expected failures, each with its exit code: kept apart from the store and the target so that
 * help and argument errors load neither the AWS SDK nor the resource definitions (the CLI answers at once).
 */
import { namedError } from '../../../functions/core/named-error.js';

/** A bad command line: exit code 2. */
export class UsageError extends namedError('UsageError') {}

/** The store refused (unknown account or key, a bound, a disabled account): exit code 2. */
export class AdminError extends namedError('AdminError') {}

/** No target to act on (no running local stack, incomplete table names): exit code 1. */
export class TargetError extends namedError('TargetError') {}
