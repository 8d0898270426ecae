import { ApiProperty, ApiSchema, type ApiSchemaOptions } from '@nestjs/swagger';

export const METER_EVENT_SCHEMA = 'service.normalized-meter-event.v1';

/**
 * One line of `GET /v1/usage/normalized-meter-events` (application/x-ndjson): one meter event, exactly
 * these four fields. `meter_event_id` is derived from (session, batch), so re-reading a range yields
 * the same ids.
 */
// ApiSchema merges unknown keys into the component; its type only names `name` and `description`.
@ApiSchema({ name: 'NormalizedMeterEvent', additionalProperties: false } as ApiSchemaOptions)
export class NormalizedMeterEventDto {
  @ApiProperty({ enum: [METER_EVENT_SCHEMA] })
  schema: typeof METER_EVENT_SCHEMA;
  session_id: string;
  /** Billable 80 ms input frames in this batch. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  frames: number;
  meter_event_id: string;
}
