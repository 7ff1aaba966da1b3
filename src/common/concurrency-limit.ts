/** Runs at most `limit` tasks at once; the others wait their turn, first come first served. */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running += 1;
    else await new Promise<void>((takeSlot) => this.waiting.push(takeSlot));
    try {
      return await task();
    } finally {
      // the slot passes straight to the next in line, or is given back
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
