/** Job progress on stderr: a redrawn bar on a terminal, plain lines (one per change) otherwise. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): boolean;
}

const BAR_WIDTH = 30;

export class ProgressReporter {
  private last = '';
  private drawn = false;

  constructor(private readonly stream: ProgressStream) {}

  /** Shows a status and, while processing, its percentage. */
  update(status: string, percent: number): void {
    const rounded = Math.max(0, Math.min(100, Math.round(percent)));
    if (this.stream.isTTY) {
      const filled = Math.round((rounded / 100) * BAR_WIDTH);
      this.stream.write(`\r\x1b[K[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${String(rounded).padStart(3)}%  ${status}`);
      this.drawn = true;
      return;
    }
    const line = `${status} ${rounded}%`;
    if (line !== this.last) this.stream.write(`${line}\n`);
    this.last = line;
  }

  /** Ends the bar's line (on a terminal) and prints a message. */
  message(text: string): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
    this.stream.write(`${text}\n`);
  }
}
