/**
 * Thrown by a job handler stopped by its worker's shutdown: the work goes back to the queue for
 * another worker, and this run is not one of the job's (or the chunk's) attempts.
 */
export class HandedBack extends Error {
  override readonly name = 'HandedBack';
}
