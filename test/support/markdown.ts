// Reading the markdown tables the bench prints (bench/report.mjs, bench/measure/faults.mjs).

/** The cells of the table rows that start with `name`, one array per row. */
export function rowsOf(stdout: string, name: string): string[][] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith(`| ${name} |`))
    .map((line) => line.split('|').slice(2, -1).map((cell) => cell.trim()));
}
