import { usdToMicros } from '../platform/money';
import type { AppConfig } from '../config/app-config';
import type { LimitSetting, ProjectControlsService } from '../modules/projects';
import type { ProjectsService } from '../modules/projects';
import { keyView, ledgerView, projectView } from '../modules/projects';

export const USAGE = `Usage: npm run cli -- <command> [--json] [--actor <name>]
  projects create --name <name>        create a project with the starting credit; prints its first key once
  projects list                        list every project
  projects show --project <id>         balance, credit limit and the limits in force
  keys create --project <id> --name <name>   create an API key (printed once)
  keys list --project <id>             list keys: prefix, name, created, last used, revoked (never the keys)
  keys revoke <key_id>                 revoke a key, its unused client secrets and its live sessions
  keys rotate <key_id> [--name <name>] create a new key and revoke the old one at once (no grace period)
  credit add --project <id> --usd <amount> [--note <text>]   add credit (a negative amount corrects)
  credit limit --project <id> (--usd <amount> | --unlimited) how far below zero the balance may go
  credit show --project <id> [--last <n>]   balance and the history of changes, newest first
  limits set --project <id> [--concurrent-sessions <n|default>] [--requests-per-minute <n|default>]
  where                                where the data lives (DATABASE_URL or DATA_DIR)
  admin token                          make an admin API token; the service takes its ADMIN_API_KEY_SHA256

  --json      print JSON for scripts (default: text for people)
  --actor     who makes the change, recorded in the project's history (default: user@host)
  --init      with the embedded database, create DATA_DIR if it holds no database yet`;

export interface CliArgs {
  positionals: string[];
  name?: string;
  project?: string;
  usd?: string;
  note?: string;
  unlimited?: boolean;
  last?: string;
  'concurrent-sessions'?: string;
  'requests-per-minute'?: string;
}

export interface CliServices {
  projects: ProjectsService;
  controls: ProjectControlsService;
  config: AppConfig;
  /** Who makes the changes, for the ledger. */
  actor: string;
}

/** A mistake in the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {}

const USD = /^-?\d{1,9}(\.\d{1,6})?$/;

function parseUsd(value: string): number {
  if (!USD.test(value)) throw new UsageError(`--usd must be a USD amount such as 25 or 12.50, not "${value}"`);
  return value.startsWith('-') ? -usdToMicros(value.slice(1)) : usdToMicros(value);
}

function parseLimit(value: string | undefined, flag: string): LimitSetting | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  if (!/^\d{1,7}$/.test(value)) throw new UsageError(`--${flag} must be a whole number or "default", not "${value}"`);
  return Number(value);
}

/** Runs one console command; returns what to print. Throws UsageError on bad input, AppError on refusals. */
export async function runCommand(services: CliServices, args: CliArgs): Promise<unknown> {
  const { projects, controls, config, actor } = services;
  const [noun, verb, target] = args.positionals;
  const need = (value: string | undefined, flag: string): string => {
    if (!value) throw new UsageError(`missing ${flag}`);
    return value;
  };
  const show = async (id: string) => projectView(await projects.getProject(id), config);
  switch (`${noun} ${verb}`) {
    case 'projects create': {
      const { project, key, secret } = await projects.createProject(need(args.name, '--name'), undefined, actor);
      return { project: projectView(project, config), key: { ...keyView(key), secret } };
    }
    case 'projects list':
      return (await projects.listProjects()).map((p) => projectView(p, config));
    case 'projects show':
      return args.project ? show(args.project) : (await projects.listProjects()).map((p) => projectView(p, config));
    case 'keys create': {
      const { key, secret } = await projects.createKey(
        need(args.project, '--project'),
        need(args.name, '--name'),
        actor,
      );
      return { ...keyView(key), secret };
    }
    case 'keys list':
      return (await projects.listKeys(need(args.project, '--project'))).map(keyView);
    case 'keys revoke': {
      const { key, revokedSecrets } = await projects.revokeKey(need(target, '<key_id>'), actor);
      return { ...keyView(key), revoked_client_secrets: revokedSecrets };
    }
    case 'keys rotate': {
      const { key, secret, revoked } = await projects.rotateKey(need(target, '<key_id>'), actor, args.name);
      return {
        key: { ...keyView(key), secret },
        revoked: { ...keyView(revoked.key), revoked_client_secrets: revoked.revokedSecrets },
      };
    }
    case 'credit add': {
      const project = need(args.project, '--project');
      const entry = await controls.addCredit(project, parseUsd(need(args.usd, '--usd')), actor, args.note);
      return { project: await show(project), change: ledgerView(entry) };
    }
    case 'credit limit': {
      const project = need(args.project, '--project');
      if (Boolean(args.unlimited) === (args.usd !== undefined))
        throw new UsageError('give either --usd <amount> or --unlimited');
      const limit = args.unlimited ? null : parseUsd(args.usd!);
      const entry = await controls.setCreditLimit(project, limit, actor);
      return { project: await show(project), change: ledgerView(entry) };
    }
    case 'credit show': {
      const project = need(args.project, '--project');
      const last = args.last === undefined ? 50 : Number(args.last);
      if (!Number.isInteger(last) || last < 1 || last > 10_000) throw new UsageError('--last must be from 1 to 10000');
      return { project: await show(project), history: (await controls.history(project, last)).map(ledgerView) };
    }
    case 'limits set': {
      const project = need(args.project, '--project');
      const change = {
        concurrentSessions: parseLimit(args['concurrent-sessions'], 'concurrent-sessions'),
        requestsPerMinute: parseLimit(args['requests-per-minute'], 'requests-per-minute'),
      };
      const entry = await controls.setLimits(project, change, actor);
      return { project: await show(project), change: ledgerView(entry) };
    }
    default:
      throw new UsageError(noun ? `unknown command "${args.positionals.join(' ')}"` : 'no command given');
  }
}
