import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'ProjectLimitsResponse' })
export class ProjectLimitsDto {
  /** Pending plus active sessions allowed at once: the project's own limit, else the service's default. */
  concurrent_sessions: number;
  /** Requests per minute allowed for each API key: the project's own limit, else the service's default. */
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
  /**
   * Credit left, USD as a 6-place decimal string (negative once usage passed it); new sessions are
   * refused once it is at or below minus `credit_limit_usd`.
   */
  balance_usd: string;
  /**
   * How far below zero the balance may fall before new sessions are refused, USD as a 6-place decimal
   * string ("0.000000": refused at zero); null when the project has no credit limit.
   */
  @ApiProperty({ type: String, nullable: true, example: '0.000000' })
  credit_limit_usd: string | null;
  limits: ProjectLimitsDto;
  /** Unix seconds. */
  created_at: number;
}
