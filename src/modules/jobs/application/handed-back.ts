/**
 * Thrown by a job handler stopped by its worker's shutdown, or that leaves a job to wait its turn:
 * the work goes back to the queue (for another worker, or after `afterMs`), and this run is not one
 * of the job's (or the chunk's) attempts.
 */
export class HandedBack extends Error {
  override readonly name = 'HandedBack';

  constructor(message: string, readonly afterMs = 0) {
    super(message);
  }
}
