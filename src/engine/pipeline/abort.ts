import { EngineError } from '../types';

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new EngineError('canceled', 'processing was canceled');
}

/**
 * `work`'s value, or canceled as soon as `signal` aborts. A model takes seconds to load and a
 * session to open (its RVM threads loading); a cancel meanwhile went unanswered, and the pool killed
 * the warm engine process after its grace, every model it held with it. What `work` gives after the
 * cancel is `release`d, and its failure then is nobody's to hear.
 */
export async function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, release?: (value: T) => void): Promise<T> {
  if (!signal) return work;
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(new EngineError('canceled', 'processing was canceled'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } catch (error) {
    if (signal.aborted) work.then((value) => release?.(value), () => undefined);
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
