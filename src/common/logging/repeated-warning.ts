/** what a RepeatedWarning writes to (a Nest Logger) */
export interface WarningSink {
  warn(message: string): void;
  log(message: string): void;
}

/**
 * A warning that recurs while something stays broken (the database away, a feed that cannot
 * reconnect): one line at most every `intervalMs`, saying how many were held back, and one line when
 * it works again. Logged as they came, a 90 s outage wrote the same line every 5 s from each timer.
 */
export class RepeatedWarning {
  private loggedAt = -Infinity;
  private heldBack = 0;
  private failing = false;
  /** a warning line was written since the last "works again" */
  private warned = false;

  constructor(
    private readonly sink: WarningSink,
    private readonly intervalMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  warn(message: string): void {
    this.failing = true;
    const now = this.now();
    if (now - this.loggedAt < this.intervalMs) {
      this.heldBack += 1;
      return;
    }
    this.sink.warn(this.heldBack > 0 ? `${message} (${this.heldBack} more since the last line)` : message);
    this.loggedAt = now;
    this.heldBack = 0;
    this.warned = true;
  }

  /**
   * It works again: `message` is logged once, if a warning line was written since it last said so.
   * The interval still holds for the next warning: a store that failed and answered by turns (one
   * request in two) wrote a warning and a "works again" line for each failure.
   */
  recovered(message: string): void {
    if (!this.failing) return;
    this.failing = false;
    if (!this.warned) return;
    this.warned = false;
    this.sink.log(message);
  }
}
