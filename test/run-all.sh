#!/usr/bin/env bash
# `npm test`: the checks (type check, lint) and the unit tests run beside the tests that need a stack, since
# none needs the others: the unit tests fill the minute in which the stack project builds the bundles and
# starts the shared stack. Their output is printed once the stack project ends; all always run to the end,
# and any failing fails the command.
set -u
# Every Node process of the run (workers, stack children, synths, CLIs) keeps V8's compiled code of the
# modules it loads here, and the next one that loads them starts from it (Node's module compile cache).
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$PWD/node_modules/.cache/node-compile}"
checks_log=$(mktemp)
unit_log=$(mktemp)
npm run --silent checks >"$checks_log" 2>&1 &
checks=$!
# One worker: the least CPU for the unit files (docs/testing.md).
vitest run --project unit --maxWorkers=1 --passWithNoTests "$@" >"$unit_log" 2>&1 &
unit=$!
vitest run --project stack --passWithNoTests "$@"
tests=$?
wait "$unit"
units=$?
cat "$unit_log"
wait "$checks"
checked=$?
if [ "$checked" -eq 0 ]; then
  echo "npm run checks: type check and lint passed"
else
  cat "$checks_log"
  echo "npm run checks failed (exit $checked)"
fi
rm -f "$checks_log" "$unit_log"
[ "$tests" -eq 0 ] && [ "$units" -eq 0 ] && [ "$checked" -eq 0 ]
