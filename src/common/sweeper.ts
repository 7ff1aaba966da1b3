/** Deletes expired rows or keys now and then, never more often than every `intervalMs`. */
export class Sweeper {
  private last = Date.now();

  constructor(
    private readonly intervalMs: number,
    private readonly sweep: () => Promise<unknown>,
  ) {}

  maybeSweep(): void {
    if (Date.now() - this.last < this.intervalMs) return;
    this.last = Date.now();
    this.sweep().catch(() => undefined);
  }
}
