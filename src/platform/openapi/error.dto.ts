import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'ErrorBody' })
export class ErrorBodyDto {
  /** Machine-readable error code, e.g. `invalid_api_key`. */
  code: string;
  /** What went wrong, for people. */
  message: string;
  /** The offending parameter, when one is to blame. */
  @ApiProperty({ type: String, nullable: true })
  param: string | null;
  /** Also in the `x-request-id` response header; quote it when reporting a problem. */
  request_id: string;
  /** Milliseconds to wait before retrying (429 and 503). */
  @ApiProperty({ type: Number, nullable: true })
  retry_after_ms: number | null;
}

@ApiSchema({ name: 'ErrorEnvelope' })
export class ErrorEnvelopeDto {
  error: ErrorBodyDto;
}

@ApiSchema({ name: 'ValidationError' })
export class ValidationIssueDto {
  /** Where the problem is: `body`, `query`, `path` or `header`, then the field path. */
  @ApiProperty({ type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] } })
  loc: (string | number)[];
  msg: string;
  /** e.g. `extra_forbidden`, `missing`, `json_invalid`, `int_type`. */
  type: string;
}

@ApiSchema({ name: 'HTTPValidationError' })
export class HTTPValidationErrorDto {
  detail: ValidationIssueDto[];
}
