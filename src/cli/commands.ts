import { microsToUsd } from '../common/money';
import { toUnixSeconds } from '../common/time';
import type { ApiKeyEntity } from '../modules/projects/entities/api-key.entity';
import type { ProjectEntity } from '../modules/projects/entities/project.entity';
import type { ProjectsService } from '../modules/projects/projects.service';

export const USAGE = `Usage: npm run cli -- <command>
  projects create --name <name>       create a project with the starting credit and print its first key
  projects show [--project <id>]      show one project, or all
  keys create --project <id> [--name <name>]   create an API key (printed once)
  keys list --project <id>            list a project's keys (never the keys themselves)
  keys revoke <key_id>                revoke a key; requests with it fail with key_revoked`;

export interface CliArgs {
  positionals: string[];
  name?: string;
  project?: string;
}

const projectView = (p: ProjectEntity) => ({
  id: p.id,
  name: p.name,
  balance_usd: microsToUsd(p.balanceMicros),
  created_at: toUnixSeconds(p.createdAt),
});
const keyView = (k: ApiKeyEntity) => ({
  id: k.id,
  name: k.name,
  prefix: `${k.keyPrefix}…`,
  created_at: toUnixSeconds(k.createdAt),
  revoked_at: k.revokedAt ? toUnixSeconds(k.revokedAt) : null,
});

/** Runs one console command; returns what to print. Throws Error with a usage hint on bad input. */
export async function runCommand(projects: ProjectsService, args: CliArgs): Promise<unknown> {
  const [noun, verb, target] = args.positionals;
  const need = (value: string | undefined, flag: string): string => {
    if (!value) throw new Error(`missing ${flag}\n\n${USAGE}`);
    return value;
  };
  switch (`${noun} ${verb}`) {
    case 'projects create': {
      const { project, key, secret } = await projects.createProject(need(args.name, '--name'));
      return { project: projectView(project), key: { ...keyView(key), secret } };
    }
    case 'projects show':
      return args.project
        ? projectView(await projects.getProject(args.project))
        : (await projects.listProjects()).map(projectView);
    case 'keys create': {
      const { key, secret } = await projects.createKey(need(args.project, '--project'), args.name ?? 'cli');
      return { ...keyView(key), secret };
    }
    case 'keys list':
      return (await projects.listKeys(need(args.project, '--project'))).map(keyView);
    case 'keys revoke':
      return keyView(await projects.revokeKey(need(target, '<key_id>')));
    default:
      throw new Error(USAGE);
  }
}
