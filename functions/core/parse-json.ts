/**
 * JSON text parsed, or the caller's own error when it is no JSON: each reader words its refusal (a request
 * body's 400, a queue message it drops, a cursor's 400), the parsing is the same.
 */
export function parseJsonOr(text: string, refusal: () => Error): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw refusal();
  }
}
