/** deliveries in a row a receiver may leave unanswered (a timeout, a refused connection) before it rests */
export const UNANSWERED_BEFORE_REST = 3;
/** how long a receiver that stopped answering is not tried */
export const REST_MS = 60_000;
/** receivers remembered at once (the URLs are the clients'), the oldest forgotten first */
const MAX_REMEMBERED = 10_000;

/**
 * The receivers (by origin) that stopped answering, as one process saw them. After
 * UNANSWERED_BEFORE_REST deliveries in a row got no answer, a receiver rests for REST_MS: its
 * deliveries are not sent meanwhile, so a receiver that hangs no longer holds a delivery slot for the
 * whole timeout on each (with 8 slots, one key's dead receiver held back every key's webhooks). After
 * the rest one delivery tries it again; an answer of any status ends its count.
 */
export class ReceiverRests {
  private readonly receivers = new Map<string, { unanswered: number; restsUntil: number }>();

  /** when the receiver's rest ends, if it rests at `now` */
  restingUntil(origin: string, now: number): number | null {
    const receiver = this.receivers.get(origin);
    return receiver && receiver.restsUntil > now ? receiver.restsUntil : null;
  }

  noteAnswered(origin: string): void {
    this.receivers.delete(origin);
  }

  noteUnanswered(origin: string, now: number): void {
    const receiver = this.receivers.get(origin) ?? { unanswered: 0, restsUntil: 0 };
    this.receivers.delete(origin);
    if (this.receivers.size >= MAX_REMEMBERED) this.receivers.delete(this.receivers.keys().next().value as string);
    receiver.unanswered += 1;
    if (receiver.unanswered >= UNANSWERED_BEFORE_REST) receiver.restsUntil = now + REST_MS;
    this.receivers.set(origin, receiver);
  }
}
