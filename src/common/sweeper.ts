/** Deletes expired rows or keys now and then, never more often than every `intervalMs`. */
export class Sweeper {
  private last = performance.now();

  constructor(
    private readonly intervalMs: number,
    private readonly sweep: () => Promise<unknown>,
  ) {}

  maybeSweep(): void {
    if (performance.now() - this.last < this.intervalMs) return;
    this.last = performance.now();
    this.sweep().catch(() => undefined);
  }
}
