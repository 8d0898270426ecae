import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { microsToUsd } from '../../platform/money';
import { toUnixSeconds } from '../../platform/time';
import { CLIENT_SECRET_TTL } from '../client-secrets';
import { ProjectDto } from './dto/project.dto';
import { ProjectsService } from './projects.service';

/** Builds the project resource: stored balance and the limits in force (the project's own, else configured). */
@Injectable()
export class ProjectView {
  constructor(
    private readonly projects: ProjectsService,
    private readonly config: AppConfig,
  ) {}

  async get(projectId: string): Promise<ProjectDto> {
    const project = await this.projects.getProject(projectId);
    return {
      id: project.id,
      object: 'project',
      name: project.name,
      balance_usd: microsToUsd(project.balanceMicros),
      credit_limit_usd: project.creditLimitMicros === null ? null : microsToUsd(project.creditLimitMicros),
      limits: {
        concurrent_sessions: project.concurrentSessionsLimit ?? this.config.concurrentSessionsLimit,
        requests_per_minute: project.requestsPerMinute ?? this.config.rateLimitPerMinute,
        max_session_seconds: this.config.maxSessionSeconds,
        client_secret_ttl_default_seconds: CLIENT_SECRET_TTL.defaultSeconds,
        client_secret_ttl_max_seconds: CLIENT_SECRET_TTL.maxSeconds,
      },
      created_at: toUnixSeconds(project.createdAt),
    };
  }
}
