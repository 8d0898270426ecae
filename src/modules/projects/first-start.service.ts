import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { ProjectEntity } from './entities/project.entity';
import { ProjectsService } from './projects.service';
import { provisionStartingKey } from './starting-key';

/**
 * On the first start against an empty database, creates the default project and prints its first API
 * key once, as a banner on standard output. The key never goes through the logger. With a configured
 * starting key (STARTING_API_KEY) no key is made or printed: the configured one is provisioned instead.
 */
@Injectable()
export class FirstStartService {
  private readonly logger = new Logger('FirstStart');

  constructor(
    private readonly projects: ProjectsService,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  async run(baseUrl: string, out: NodeJS.WritableStream = process.stdout): Promise<boolean> {
    const startingKey = this.config.startingApiKey;
    if (startingKey) {
      const outcome = await this.dataSource.transaction(async (manager) => {
        await manager.query('LOCK TABLE projects IN SHARE ROW EXCLUSIVE MODE');
        return provisionStartingKey(manager, startingKey, this.projects);
      });
      if (outcome.kind === 'present' && outcome.revoked) {
        this.logger.warn(
          `the configured starting key ${startingKey.prefix}… (${outcome.keyId}) is revoked; it stays revoked`,
        );
      } else if (outcome.kind !== 'present') {
        this.logger.log(`starting key provisioned as ${outcome.keyId} of ${outcome.projectId}`);
      }
      return outcome.kind === 'project_created';
    }
    // The table lock makes "is it empty? then create" atomic when several instances start together.
    const created = await this.dataSource.transaction(async (manager) => {
      await manager.query('LOCK TABLE projects IN SHARE ROW EXCLUSIVE MODE');
      if ((await manager.count(ProjectEntity)) > 0) return null;
      return this.projects.createProject('Default project', manager);
    });
    if (!created) return false;
    const { project, secret } = created;
    out.write(
      [
        '',
        '==================================================================',
        ` Continuum is ready. Project ${project.id} starts with its credit.`,
        ' Your first API key (shown once, store it now):',
        '',
        `   ${secret}`,
        '',
        ' Try it:',
        `   curl -H "Authorization: Bearer ${secret}" ${baseUrl}/v1/models`,
        '==================================================================',
        '',
      ].join('\n'),
    );
    return true;
  }
}
