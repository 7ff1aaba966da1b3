/** Plain-text tables for the benchmark's report. */

export type Cell = string | number | undefined;

export function formatCell(value: Cell, digits = 2): string {
  if (value === undefined) return '-';
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value)) return '-';
  return value.toFixed(digits);
}

export function renderTable(headers: string[], rows: Cell[][], digits: number[] = []): string {
  const text = rows.map((row) => row.map((cell, column) => formatCell(cell, digits[column] ?? 2)));
  const widths = headers.map((header, column) => Math.max(header.length, ...text.map((row) => row[column].length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  return [line(headers), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...text.map(line)].join('\n');
}

export function megabytes(bytes: number): number {
  return bytes / (1024 * 1024);
}
