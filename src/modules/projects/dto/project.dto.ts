import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'ProjectLimitsResponse' })
export class ProjectLimitsDto {
  /** Pending plus active sessions allowed at once. */
  concurrent_sessions: number;
  /** Requests per minute allowed for each API key. */
  requests_per_minute: number;
  max_session_seconds: number;
  client_secret_ttl_default_seconds: number;
  client_secret_ttl_max_seconds: number;
}

@ApiSchema({ name: 'ProjectResponse' })
export class ProjectDto {
  id: string;
  @ApiProperty({ enum: ['project'] })
  object: 'project';
  name: string;
  /** Credit left, USD as a 6-place decimal string; sessions are refused at or below zero. */
  balance_usd: string;
  limits: ProjectLimitsDto;
  /** Unix seconds. */
  created_at: number;
}
