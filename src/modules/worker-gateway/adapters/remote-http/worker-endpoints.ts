/**
 * The configured worker base URLs and what the gateway has lately seen of each. An endpoint whose
 * /health or /run failed is "cooling down" for a while: it is tried only after every healthy one.
 * Healthy endpoints take turns (round robin) so jobs spread over the workers.
 */
export class WorkerEndpoints {
  private readonly failedUntil = new Map<string, number>();
  private readonly reasons = new Map<string, string>();
  private next = 0;

  constructor(
    readonly urls: readonly string[],
    private readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
  ) {
    if (urls.length === 0) throw new Error('at least one worker URL is needed');
  }

  /** Every endpoint once: healthy ones first (starting at the next in turn), then the cooling-down ones, soonest recovered first. */
  candidates(): string[] {
    const start = this.next++ % this.urls.length;
    const rotated = [...this.urls.slice(start), ...this.urls.slice(0, start)];
    const healthy = rotated.filter((url) => this.isHealthy(url));
    const cooling = rotated.filter((url) => !this.isHealthy(url)).sort((a, b) => (this.failedUntil.get(a) ?? 0) - (this.failedUntil.get(b) ?? 0));
    return [...healthy, ...cooling];
  }

  isHealthy(url: string): boolean {
    return (this.failedUntil.get(url) ?? 0) <= this.now();
  }

  markFailed(url: string, reason: string): void {
    this.failedUntil.set(url, this.now() + this.cooldownMs);
    this.reasons.set(url, reason);
  }

  markHealthy(url: string): void {
    this.failedUntil.delete(url);
    this.reasons.delete(url);
  }

  lastFailure(url: string): string | undefined {
    return this.reasons.get(url);
  }
}
