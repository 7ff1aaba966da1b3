import { parseArgs } from 'node:util';
import { BackdropClient } from './client/api-client';
import { downloadJob, listJobs, Output, removeBackground, showUsage } from './client/commands';
import { CliError, EXIT, UsageError } from './client/errors';
import { MODELS, numberOption, oneOf, outputFormat, parseBackground, STATUSES } from './client/job-options';
import { ProgressReporter } from './client/progress';
import { ClientCliConfig, loadClientCliConfig } from '../config/client-cli-config';

export const HELP = `backdrop: remove the background of videos with a Backdrop server

Usage:
  backdrop remove <input> [-o <output>] [--force] [--model m] [--format f] [--bg b] [--preview seconds]
  backdrop download <job-id> [-o <output>] [--force]
  backdrop jobs [--status s] [--limit n] [--offset n] [--json]
  backdrop usage [--days n] [--json]

remove   uploads <input>, starts a job, shows its progress (on stderr) and downloads the result.
         -o, --output   where to save it (default: <input>.nobg.<format>); prints its path on stdout
         --force        overwrite that file if it exists (never the input)
         --model        ${MODELS.join(' | ')} (server default: original)
         --format       webm | mov | mp4 | gif | webp | png_sequence (default: from -o's extension, else webm)
         --bg           transparent | #RRGGBB | https://image.url (default: transparent)
         --preview      process only the first N seconds (0.5 to 30)
download saves a completed job's output again (default: <job-id>.<format> here); prints its path on stdout
jobs     lists your jobs, newest first. --status ${STATUSES.join(' | ')}; --limit 1..100; --offset
usage    credits, jobs and requests per day. --days 1..90 (default 7)

Connection:
  --url <base>   or BACKDROP_URL (default http://localhost:3000)
  --key <key>    or BACKDROP_KEY (the X-Api-Key; npm start prints a development key). Prefer
                 BACKDROP_KEY: a key on the command line shows in ps and in shell history

Exit codes:
  0  success
  1  the job failed (its error is printed)
  2  usage error: bad arguments, unreadable input file, an output that exists (without --force) or cannot be written
  3  the API refused the request: bad or missing key, invalid settings, no credits, a job not completed yet (its message is printed)
  4  network error: the server cannot be reached, or the download was cut short
`;

const OPTIONS = {
  output: { type: 'string', short: 'o' },
  model: { type: 'string' },
  format: { type: 'string' },
  bg: { type: 'string' },
  preview: { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  offset: { type: 'string' },
  days: { type: 'string' },
  json: { type: 'boolean' },
  force: { type: 'boolean' },
  url: { type: 'string' },
  key: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function connect(values: { url?: string; key?: string }, config: ClientCliConfig): BackdropClient {
  const base = values.url ?? config.url;
  const key = values.key ?? config.key;
  if (!key) throw new UsageError('No API key: pass --key or set BACKDROP_KEY');
  if (!/^https?:\/\/[^/]+/i.test(base)) throw new UsageError(`--url must be an http(s) URL (got "${base}")`);
  // without echoing it: a password in it would land in the terminal and its logs
  if (/^https?:\/\/[^/?#]*@/i.test(base)) throw new UsageError('--url must not hold a user name or password; pass the API key with --key or BACKDROP_KEY');
  return new BackdropClient(base, key);
}

async function dispatch(argv: string[], config: ClientCliConfig, output: Output): Promise<void> {
  const { values, positionals } = parse(argv);
  const [command, ...rest] = positionals;
  if (values.help || command === 'help' || !command) return output.out(HELP);
  if (command === 'remove') {
    if (rest.length !== 1) throw new UsageError('remove takes exactly one input file: backdrop remove <input> -o <output>');
    const options = {
      input: rest[0],
      output: values.output,
      format: outputFormat(values.format, values.output),
      model: oneOf(values.model, 'model', MODELS),
      background: values.bg === undefined ? undefined : parseBackground(values.bg),
      preview: numberOption(values.preview, 'preview', { min: 0.5, max: 30 }),
      force: values.force ?? false,
    };
    return removeBackground(connect(values, config), options, output);
  }
  if (command === 'download') {
    if (rest.length !== 1) throw new UsageError('download takes exactly one job id: backdrop download <job-id> -o <output>');
    return downloadJob(connect(values, config), { id: rest[0], output: values.output, force: values.force ?? false }, output);
  }
  if (command === 'jobs') {
    const query = {
      status: oneOf(values.status, 'status', STATUSES),
      limit: numberOption(values.limit, 'limit', { min: 1, max: 100, integer: true }),
      offset: numberOption(values.offset, 'offset', { min: 0, max: 1e9, integer: true }),
    };
    return listJobs(connect(values, config), query, values.json ?? false, output);
  }
  if (command === 'usage') return showUsage(connect(values, config), numberOption(values.days, 'days', { min: 1, max: 90, integer: true }), values.json ?? false, output);
  throw new UsageError(`Unknown command "${command}"`);
}

/** Runs the CLI; resolves to the exit code. */
export async function main(argv: string[], config: ClientCliConfig = loadClientCliConfig()): Promise<number> {
  const progress = new ProgressReporter(process.stderr);
  try {
    await dispatch(argv, config, { out: (text) => process.stdout.write(text), progress });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CliError) {
      progress.message(`backdrop: ${error.message}${error.exitCode === EXIT.usage ? '\nRun `backdrop --help` for usage.' : ''}`);
      return error.exitCode;
    }
    progress.message(`backdrop: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 70;
  }
}
