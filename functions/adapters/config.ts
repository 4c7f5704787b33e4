/**
 * Configuration is read once, at cold start, from the environment; a missing value fails the
 * function's first load with a message naming it, instead of failing some later request.
 */
export class MissingConfigError extends Error {
  override readonly name = 'MissingConfigError';
}

export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value.trim() === '') {
    throw new MissingConfigError(`environment variable ${name} is required`);
  }
  return value;
}

export function optionalEnv(name: string, fallback: string): string {
  const value = process.env[name];
  return value === undefined || value.trim() === '' ? fallback : value;
}

export function positiveIntegerEnv(name: string, fallback: number): number {
  return integerEnv(name, fallback, 1, 'a positive integer');
}

/** Where 0 means "off". */
export function nonNegativeIntegerEnv(name: string, fallback: number): number {
  return integerEnv(name, fallback, 0, 'an integer ≥ 0');
}

function integerEnv(name: string, fallback: number, min: number, what: string): number {
  const text = optionalEnv(name, String(fallback));
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new MissingConfigError(`environment variable ${name} must be ${what} (got "${text}")`);
  }
  return value;
}
