import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ProjectEntity } from './entities/project.entity';
import { ProjectsService } from './projects.service';

/**
 * On the first start against an empty database, creates the default project and prints its first API
 * key once, as a banner on standard output. The key never goes through the logger.
 */
@Injectable()
export class FirstStartService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly dataSource: DataSource,
  ) {}

  async run(baseUrl: string, out: NodeJS.WritableStream = process.stdout): Promise<boolean> {
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
