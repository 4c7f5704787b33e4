/**
 * A missing or wrong input to synthesis that the operator fixes (a key file, a package, a context value):
 * bin/cdk-app.ts prints its message as one line, without a stack trace, and exits 1. The message names the fix.
 */
export class SetupError extends Error {
  override readonly name = 'SetupError';
}
