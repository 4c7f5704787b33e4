#!/usr/bin/env bash
# `npm test`: the checks (type check, lint) run beside every test, since neither needs the other; their output
# is printed once the tests end. Both always run to the end, and either failing fails the command.
set -u
log=$(mktemp)
npm run --silent checks >"$log" 2>&1 &
checks=$!
vitest run "$@"
tests=$?
wait "$checks"
checked=$?
if [ "$checked" -eq 0 ]; then
  echo "npm run checks: type check and lint passed"
else
  cat "$log"
  echo "npm run checks failed (exit $checked)"
fi
rm -f "$log"
[ "$tests" -eq 0 ] && [ "$checked" -eq 0 ]
