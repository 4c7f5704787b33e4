/** Errors of the local Step Functions: the API's (`{ __type, message }`) and the ones states fail with. */

export class ApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export function namedError(name: string, message: string): Error {
  const err = new Error(message);
  err.name = name;
  return err;
}

/** States.Runtime that no Retry or Catch matches (in the library's terms), as the library's own. */
export function terminalError(message: string): Error {
  return Object.assign(namedError('States.Runtime', message), { isRetryable: false, isCatchable: false });
}
