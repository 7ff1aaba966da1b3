/**
 * Work done in the order it was asked for: each piece starts once the one before has settled,
 * fulfilled or failed (a failed frame does not hold up the frames after it). Sessions with frames
 * in flight start a frame's model run at once and finish the frames through this, one after another.
 */
export class InOrder {
  private last: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.last.then(work);
    this.last = result.catch(() => undefined);
    return result;
  }
}
