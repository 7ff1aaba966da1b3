import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { EnvironmentVariables, schemaVariables } from './environment-variables';

/** One bad variable and what is wrong with it. */
export interface ConfigProblem {
  variable: string;
  message: string;
}

/** The configuration is invalid: names every bad variable (`variables`), the first as `variable`. */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    super(`Invalid configuration: ${problems.map((problem) => `${problem.variable}: ${problem.message}`).join('; ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }

  get variable(): string {
    return this.problems[0].variable;
  }

  get variables(): string[] {
    return this.problems.map((problem) => problem.variable);
  }
}

/** A check across variables: a problem, or nothing. */
export type ConfigCheck = (env: EnvironmentVariables) => ConfigProblem | undefined;

/**
 * Reads the schema's variables from `source` (unset and empty mean the default), validates each and
 * then `checks`, and throws one ConfigError naming every bad variable.
 */
export function readEnvironment(source: NodeJS.ProcessEnv, checks: readonly ConfigCheck[] = []): EnvironmentVariables {
  const raw: Record<string, string> = {};
  for (const key of schemaVariables()) {
    const value = source[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const env = plainToInstance(EnvironmentVariables, raw, { exposeDefaultValues: true });
  const problems: ConfigProblem[] = validateSync(env, { whitelist: false, forbidUnknownValues: false }).map((error) => ({
    variable: error.property,
    message: Object.values(error.constraints ?? { invalid: 'is invalid' }).join(', '),
  }));
  for (const check of checks) {
    const problem = check(env);
    if (problem && !problems.some((known) => known.variable === problem.variable)) problems.push(problem);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return env;
}
