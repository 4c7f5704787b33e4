/** Rows as aligned columns, as the list and show commands print them. */
import type { AdminOutput } from './command.js';

/** Rows as aligned columns, one line each. */
export function table(output: AdminOutput, rows: string[][]): void {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows)
    output.out(
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    );
}
