import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { BackdropClient, Job } from './api-client';
import { ApiError, CliError, EXIT, NetworkError, UsageError } from './errors';
import { Background, EXTENSION_OF_FORMAT } from './job-options';
import { ProgressReporter } from './progress';

export interface Output {
  out(text: string): void;
  progress: ProgressReporter;
}

export interface RemoveOptions {
  input: string;
  output?: string;
  format: string;
  model?: string;
  background?: Background;
  preview?: number;
  /** overwrite an existing output file (never the input) */
  force?: boolean;
  /** first interval, then every `pollMs` (2 s then 5 s, as the API recommends) */
  firstPollMs?: number;
  pollMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function defaultOutput(input: string, format: string): string {
  const parsed = path.parse(input);
  return path.join(parsed.dir, `${parsed.name}.nobg${EXTENSION_OF_FORMAT[format]}`);
}

/**
 * Where the output may be written, checked before anything is uploaded or paid for: not the input,
 * not a directory, not an existing file unless forced, in a directory that exists and takes files.
 * Found at the download, a bad path failed the command after the job was charged.
 */
function assertWritableDestination(input: string | null, destination: string, force: boolean): void {
  if (existsSync(destination)) {
    if (input !== null && realpathSync(destination) === realpathSync(input)) throw new UsageError(`The output ${destination} is the input: choose another -o`);
    if (statSync(destination).isDirectory()) throw new UsageError(`The output ${destination} is a directory: name the file to write`);
    if (!force) throw new UsageError(`The output ${destination} exists: pass --force to overwrite it`);
  }
  const directory = path.dirname(path.resolve(destination));
  if (!existsSync(directory) || !statSync(directory).isDirectory()) throw new UsageError(`No such directory for the output: ${directory}`);
  try {
    accessSync(directory, constants.W_OK);
  } catch {
    throw new UsageError(`Cannot write the output in ${directory}`);
  }
}

/** polls that fail for a moment (429, 5xx, the network) are asked again this many times, after 1 s, 2 s, 4 s... (about 2 minutes in all) */
const POLL_RETRIES = 8;
const FIRST_POLL_RETRY_MS = 1000;
const MAX_POLL_RETRY_MS = 30_000;

function isTransient(error: unknown): boolean {
  return error instanceof NetworkError || (error instanceof ApiError && (error.status === 429 || error.status >= 500));
}

/** GET the job; a moment's failure is retried: the job runs and is charged on, and gave up on, it was lost to the command */
async function pollJob(client: BackdropClient, id: string, output: Output): Promise<Job> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await client.job(id);
    } catch (error) {
      if (!isTransient(error) || attempt >= POLL_RETRIES) throw error;
      const waitMs = Math.min(MAX_POLL_RETRY_MS, FIRST_POLL_RETRY_MS * 2 ** attempt);
      output.progress.message(`${(error as Error).message}; asking again in ${Math.round(waitMs / 1000)} s`);
      await sleep(waitMs);
    }
  }
}

/** Polls until the job completes or fails, showing its progress. */
async function follow(client: BackdropClient, id: string, options: RemoveOptions, output: Output): Promise<Job> {
  for (let round = 0; ; round += 1) {
    const job = await pollJob(client, id, output);
    output.progress.update(job.status, job.status === 'completed' ? 100 : job.progress);
    if (job.status === 'completed' || job.status === 'failed') return job;
    await sleep(round === 0 ? (options.firstPollMs ?? 2000) : (options.pollMs ?? 5000));
  }
}

/** backdrop remove: upload, create (started), poll, download. Prints the output's path on stdout. */
export async function removeBackground(client: BackdropClient, options: RemoveOptions, output: Output): Promise<void> {
  if (!existsSync(options.input) || !statSync(options.input).isFile()) throw new UsageError(`No such file: ${options.input}`);
  const destination = options.output ?? defaultOutput(options.input, options.format);
  assertWritableDestination(options.input, destination, options.force ?? false);

  output.progress.message(`Uploading ${options.input}`);
  const upload = await client.upload(options.input);
  const created = await client.createJob({
    video_url: upload.video_url,
    output_format: options.format,
    ...(options.model ? { model: options.model } : {}),
    ...(options.background ? { background: options.background } : {}),
    ...(options.preview !== undefined ? { preview_duration: options.preview } : {}),
  });
  // auto_start refused for credit: the job is made, failed, and the API answers it (not an error)
  if (created.status === 'failed') throw new CliError(`Job ${created.id} was not started: ${created.job?.error ?? 'no reason given'}${created.job?.error_code ? ` (${created.job.error_code})` : ''}`, EXIT.api);
  output.progress.message(`Job ${created.id} started`);

  const job = await follow(client, created.id, options, output);
  if (job.status === 'failed') throw new CliError(`Job ${job.id} failed: ${job.error ?? 'no reason given'}${job.error_code ? ` (${job.error_code})` : ''}`, EXIT.jobFailed);

  await save(client, job, destination, output);
}

/** Downloads a completed job's output to `destination`; prints its path on stdout. */
async function save(client: BackdropClient, job: Job, destination: string, output: Output): Promise<void> {
  let bytes: number;
  try {
    bytes = await client.download(job.output_url!, destination);
  } catch (error) {
    const reason = error instanceof CliError ? error.message : error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new CliError(`Downloading job ${job.id}'s output failed: ${reason}; ${destination} was left as it was, and \`backdrop download ${job.id}\` fetches it until its retention ends`, error instanceof ApiError ? EXIT.api : EXIT.network);
  }
  output.progress.message(`Saved ${destination} (${bytes} bytes, ${job.duration_seconds ?? '?'} s, ${job.output_format})`);
  output.out(`${destination}\n`);
}

/** backdrop download: a finished job's output, again (a download cut short, another machine). Default: <job id>.<format> here. */
export async function downloadJob(client: BackdropClient, options: { id: string; output?: string; force?: boolean }, output: Output): Promise<void> {
  const job = await client.job(options.id);
  if (job.status === 'failed') throw new CliError(`Job ${job.id} failed: ${job.error ?? 'no reason given'}${job.error_code ? ` (${job.error_code})` : ''}`, EXIT.jobFailed);
  if (job.status !== 'completed' || !job.output_url) throw new CliError(`Job ${job.id} is ${job.status}${job.status === 'processing' ? ` (${Math.round(job.progress)}%)` : ''}: its output can be downloaded once it is completed`, EXIT.api);
  const destination = options.output ?? `${job.id}${EXTENSION_OF_FORMAT[job.output_format] ?? ''}`;
  assertWritableDestination(null, destination, options.force ?? false);
  await save(client, job, destination, output);
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()).join('\n') + '\n';
}

export async function listJobs(client: BackdropClient, query: { status?: string; limit?: number; offset?: number }, json: boolean, output: Output): Promise<void> {
  const page = await client.jobs(query);
  if (json) return output.out(`${JSON.stringify(page, null, 2)}\n`);
  const rows = page.items.map((job) => [job.id, job.status === 'processing' ? `processing ${Math.round(job.progress)}%` : job.status, job.model, job.output_format, job.created_at, job.duration_seconds === null ? '-' : `${job.duration_seconds}s`]);
  output.out(table([['ID', 'STATUS', 'MODEL', 'FORMAT', 'CREATED', 'DURATION'], ...rows]));
  output.out(`${page.total ? `${page.offset + 1}-${page.offset + page.items.length}` : '0'} of ${page.total} jobs\n`);
}

export async function showUsage(client: BackdropClient, days: number | undefined, json: boolean, output: Output): Promise<void> {
  const summary = await client.usageSummary(days);
  if (json) return output.out(`${JSON.stringify(summary, null, 2)}\n`);
  const rows = summary.daily.map((day) => [day.date, String(day.credits_used), String(day.total_jobs), String(day.completed_jobs), String(day.failed_jobs), String(day.video_seconds), String(day.requests)]);
  output.out(table([['DATE', 'CREDITS', 'JOBS', 'COMPLETED', 'FAILED', 'VIDEO S', 'REQUESTS'], ...rows]));
  output.out(`Last ${summary.days} days: ${summary.credits_used} credits, ${summary.total_jobs} jobs (${summary.completed_jobs} completed, ${summary.failed_jobs} failed), ${summary.video_seconds} s of video, ${summary.requests} requests\n`);
}
