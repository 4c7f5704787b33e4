/**
 * Operator CLI: `npm run --silent admin -- <command> [options]`. Acts on the running local stack, or on
 * AWS when TABLE_PREFIX (or the *_TABLE variables) and AWS credentials are set. `--help` for usage; the
 * commands are in lib/ship/admin/commands/, the entry that runs them in lib/ship/admin/cli.ts.
 */
import { runAdmin } from '../lib/ship/admin/cli.js';

process.exitCode = await runAdmin(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
