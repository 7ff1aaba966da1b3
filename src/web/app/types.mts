/** The API's shapes as the dashboard reads them: the contract's own (src/contract, shared with the server), and the dashboard's orderings. */
import type { Anchor, Model } from './job-settings.js';

export type { JobsPage, JobView, Pricing, UploadView, UsageCounters, UsageEvent, UsageEvents, UsageSummary } from './api-types.js';
export type { JobStatus } from './job-status.js';
export type { Anchor } from './job-settings.js';
export { JOB_STATUSES, TERMINAL_STATUSES } from './job-status.js';
export { OUTPUT_EXTENSIONS, OUTPUT_FORMATS } from './job-settings.js';

/** The models in the order the form offers them. */
export const MODELS: readonly Model[] = ['light', 'human', 'original', 'pro'];
/** The anchors in the order of the 3x3 grid. */
export const ANCHORS: readonly Anchor[] = ['top-left', 'top-center', 'top-right', 'center-left', 'center', 'center-right', 'bottom-left', 'bottom-center', 'bottom-right'];
