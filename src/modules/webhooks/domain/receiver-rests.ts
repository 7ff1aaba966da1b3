/** deliveries in a row a receiver may leave unanswered (a timeout, a refused connection) before it rests */
export const UNANSWERED_BEFORE_REST = 3;
/** receivers remembered at once (the URLs are the clients'), the oldest forgotten first */
const MAX_REMEMBERED = 10_000;

interface Receiver {
  unanswered: number;
  restsUntil: number;
  /** after a rest, one delivery tries the receiver again; until it is answered or not, the others wait */
  triedUntil: number;
}

/**
 * The receivers (by origin) that stopped answering, as one process saw them. After
 * UNANSWERED_BEFORE_REST deliveries in a row got no answer, a receiver rests for `restMs`: its
 * deliveries are not sent meanwhile, so a receiver that hangs no longer holds a delivery slot for the
 * whole timeout on each (with 8 slots, one key's dead receiver held back every key's webhooks). After
 * the rest one delivery tries it again, the others waiting for its outcome; an answer of any status
 * ends the count, no answer starts another rest. A rest of 0 rests no receiver.
 */
export class ReceiverRests {
  private readonly receivers = new Map<string, Receiver>();

  constructor(private readonly restMs: number) {}

  /**
   * Null: send to the receiver now (`timeoutMs`: how long the send may take). Otherwise when to try
   * again: the end of its rest, or of the try after its rest.
   */
  holdUntil(origin: string, now: number, timeoutMs: number): number | null {
    const receiver = this.receivers.get(origin);
    if (this.restMs === 0 || !receiver || receiver.unanswered < UNANSWERED_BEFORE_REST) return null;
    if (receiver.restsUntil > now) return receiver.restsUntil;
    if (receiver.triedUntil > now) return receiver.triedUntil;
    receiver.triedUntil = now + timeoutMs;
    return null;
  }

  noteAnswered(origin: string): void {
    this.receivers.delete(origin);
  }

  noteUnanswered(origin: string, now: number): void {
    const receiver = this.receivers.get(origin) ?? { unanswered: 0, restsUntil: 0, triedUntil: 0 };
    this.receivers.delete(origin);
    if (this.receivers.size >= MAX_REMEMBERED) this.receivers.delete(this.receivers.keys().next().value as string);
    receiver.unanswered += 1;
    if (receiver.unanswered >= UNANSWERED_BEFORE_REST) Object.assign(receiver, { restsUntil: now + this.restMs, triedUntil: 0 });
    this.receivers.set(origin, receiver);
  }
}
