/** What the command line asked vitest to run: global setups skip what a unit-only run never uses. */
export function onlyUnitTests(argv: readonly string[] = process.argv): boolean {
  const filters = argv.slice(2).filter((arg) => arg.startsWith('test/'));
  return filters.length > 0 && filters.every((filter) => filter.startsWith('test/unit'));
}
