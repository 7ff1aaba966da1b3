/** The inference threads' side of closeThread (worker-thread.ts). */

/** asks an inference thread to end once the runs it holds are done (exitWhenDone) */
export interface ThreadCloseRequest {
  kind: 'close';
}

/**
 * On the inference thread: once every request queued before the close is done, frees the session
 * and ends the thread (closeThread). `queue`: the requests in order.
 */
export async function exitWhenDone(queue: Promise<unknown>, session: { release(): Promise<void> }): Promise<void> {
  await queue.catch(() => undefined);
  await session.release().catch(() => undefined);
  process.exit(0); // on a worker thread: ends the thread, not the process
}
