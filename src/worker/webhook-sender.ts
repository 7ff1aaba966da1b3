import { RemoteStatus } from '../common/worker-protocol/runpod-protocol';
import { postJson } from './transfers';

export interface WebhookSenderOptions {
  timeoutMs: number;
  /** delays before the second, third... attempts (ms) */
  retryDelaysMs?: readonly number[];
  log?: (line: string) => void;
}

/** POSTs a finished job's status object to its webhook, retrying on errors and non-2xx answers; never throws. */
export function webhookSender(options: WebhookSenderOptions): (webhook: string, status: RemoteStatus) => void {
  const delays = options.retryDelaysMs ?? [1000, 5000];
  return (webhook, status) => {
    void (async () => {
      for (let attempt = 0; attempt <= delays.length; attempt += 1) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, delays[attempt - 1]).unref());
        const answer = await postJson(webhook, status, { timeoutMs: options.timeoutMs }).catch((error: Error) => error.message);
        if (typeof answer === 'number' && answer >= 200 && answer < 300) return;
        options.log?.(`webhook for ${status.id} (attempt ${attempt + 1}): ${typeof answer === 'number' ? `HTTP ${answer}` : answer}`);
      }
    })();
  };
}
