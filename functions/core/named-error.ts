/**
 * An Error class whose `name` is a string literal. Step Functions' Retry/Catch and our mappers match errors
 * by name, and the bundles are minified, so a class's own name (`_a` there) must never be relied on.
 */
export function namedError<N extends string>(name: N) {
  return class extends Error {
    override readonly name: N = name;
  };
}
