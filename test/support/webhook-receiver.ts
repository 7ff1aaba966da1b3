import * as http from 'node:http';
import { AddressInfo } from 'node:net';

/** one request the receiver answered: the job, the event, and the delivery id it came under */
export interface WebhookDelivery {
  job: string;
  event: string;
  id: string;
}

/** how long `deliveriesOnceCome` waits after an event for a duplicate of it to show up */
const DUPLICATE_ROOM_MS = 1500;
const POLL_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** polls until `done` holds or `timeoutMs` has passed */
async function waitUntil(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await sleep(POLL_MS);
}

export interface WebhookReceiverOptions {
  /** the event whose first request is held unanswered */
  holdFirst?: string;
}

/**
 * A webhook receiver that answers 200 and remembers every delivery. A job's events are sent from the
 * outbox after the job's state is committed, so they may still be on their way when the job reads
 * done: the waits below are for that. With `holdFirst`, the first request of that event is never
 * answered nor counted (a sender that dies mid-delivery leaves it so).
 */
export async function startWebhookReceiver(options: WebhookReceiverOptions = {}) {
  const deliveries: WebhookDelivery[] = [];
  const held: WebhookDelivery[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const { data } = JSON.parse(body) as { data: { id: string } };
      const delivery = { job: data.id, event: String(req.headers['x-webhook-event']), id: String(req.headers['webhook-id']) };
      if (delivery.event === options.holdFirst && held.length === 0) return void held.push(delivery);
      deliveries.push(delivery);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  /** each job's event with the delivery ids it came under */
  const idsBySlot = () => {
    const slots = new Map<string, Set<string>>();
    for (const { job, event, id } of deliveries) slots.set(`${job} ${event}`, (slots.get(`${job} ${event}`) ?? new Set()).add(id));
    return slots;
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    /** events announced under more than one delivery id: real duplicates (a retried id is not one) */
    duplicates: () => [...idsBySlot().values()].filter((ids) => ids.size > 1).length,
    /** each of `jobs`' `events` that has not come, as "job event" */
    missing: (jobs: string[], events: readonly string[]) => {
      const slots = idsBySlot();
      return jobs.flatMap((job) => events.map((event) => `${job} ${event}`)).filter((slot) => !slots.has(slot));
    },
    /** how many distinct events (a job's event) have come, once `expected` have or `timeoutMs` has passed */
    eventsBy: async (expected: number, timeoutMs: number) => {
      await waitUntil(() => idsBySlot().size >= expected, timeoutMs);
      return idsBySlot().size;
    },
    /** the request held unanswered, once it has come (or null after `timeoutMs`) */
    heldRequest: async (timeoutMs: number) => {
      await waitUntil(() => held.length > 0, timeoutMs);
      return held[0] ?? null;
    },
    /** `job`'s deliveries once its `event` has come (or `timeoutMs` has passed), and DUPLICATE_ROOM_MS more */
    deliveriesOnceCome: async (job: string, event: string, timeoutMs = 30000) => {
      await waitUntil(() => deliveries.some((seen) => seen.job === job && seen.event === event), timeoutMs);
      await sleep(DUPLICATE_ROOM_MS);
      return deliveries.filter((seen) => seen.job === job);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
