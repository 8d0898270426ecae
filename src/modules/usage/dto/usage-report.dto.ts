import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { USAGE_GROUPINGS, type UsageGrouping } from './usage-query.dto';

@ApiSchema({ name: 'UsageBucketResponse' })
export class UsageBucketDto {
  /** The UTC day (`YYYY-MM-DD`) or the model id. */
  bucket: string;
  /** Sessions created or metered in the bucket (a session metered across midnight counts on both days). */
  @ApiProperty({ type: 'integer' })
  sessions: number;
  /** Billable 80 ms input frames metered in the bucket. */
  @ApiProperty({ type: 'integer' })
  frames: number;
  /** `frames * 0.08`. */
  seconds: number;
  /** Text tokens of conversation responses billed in the bucket: input (context) tokens. */
  @ApiProperty({ type: 'integer' })
  input_tokens: number;
  /** Text tokens of conversation responses billed in the bucket: output tokens. */
  @ApiProperty({ type: 'integer' })
  output_tokens: number;
  /** Sum of the cost stored with each meter event (frames and tokens), USD as a 6-place decimal string. */
  cost_usd: string;
}

@ApiSchema({ name: 'UsageListResponse' })
export class UsageListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';
  @ApiProperty({ enum: USAGE_GROUPINGS, enumName: 'UsageGrouping' })
  group_by: UsageGrouping;
  /** The range served, Unix seconds, inclusive (the default filled in). */
  @ApiProperty({ type: 'integer' })
  from: number;
  /** The range served, Unix seconds, exclusive (the default filled in). */
  @ApiProperty({ type: 'integer' })
  to: number;
  /** Buckets with any session, days in ascending order, models by id. */
  data: UsageBucketDto[];
}
