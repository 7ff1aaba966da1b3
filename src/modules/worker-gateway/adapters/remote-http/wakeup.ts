/** A sleep that something else can cut short; a wake-up that comes while nobody sleeps ends the next sleep at once. */
export class Wakeup {
  private pending = false;
  private resolveSleep: (() => void) | null = null;

  fire(): void {
    if (this.resolveSleep) this.resolveSleep();
    else this.pending = true;
  }

  sleep(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.resolveSleep = null;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.resolveSleep = done;
    });
  }
}
