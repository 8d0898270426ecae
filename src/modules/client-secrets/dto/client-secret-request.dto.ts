import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, Max, Min, ValidateNested } from 'class-validator';
import { CLIENT_SECRET_TTL } from '../client-secret-ttl';
import { IsMetadata, OptionalField } from '../../../platform/validation/request-field.validators';
import { RequestedSessionDto } from './requested-session.dto';

// Validators run bottom-up and a 422 reports the first failure of each field, so each field's type
// check is written last: a value of the wrong type is reported as such, not as out of range.

@ApiSchema({ name: 'ExpiresAfterRequest' })
export class ExpiresAfterRequestDto {
  /** The lifetime counts from creation; `created_at` is the only anchor. */
  @ApiPropertyOptional({ enum: ['created_at'], default: 'created_at' })
  @OptionalField()
  @IsIn(['created_at'])
  anchor?: 'created_at';
  /** Lifetime of the secret in seconds, 1..600. */
  @ApiPropertyOptional({
    type: 'integer',
    default: CLIENT_SECRET_TTL.defaultSeconds,
    minimum: CLIENT_SECRET_TTL.minSeconds,
    maximum: CLIENT_SECRET_TTL.maxSeconds,
  })
  @OptionalField()
  @Max(CLIENT_SECRET_TTL.maxSeconds)
  @Min(CLIENT_SECRET_TTL.minSeconds)
  @IsInt()
  seconds?: number;
}

/** Body of both client-secret endpoints. Every property is optional; unknown ones are refused. */
@ApiSchema({ name: 'ClientSecretRequest' })
export class ClientSecretRequestDto {
  @OptionalField()
  @Type(() => ExpiresAfterRequestDto)
  @ValidateNested()
  @IsObject()
  expires_after?: ExpiresAfterRequestDto;
  /** Free labels, echoed on the session: at most 16 keys of 1..64 characters, values of at most 512. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, maxProperties: 16 })
  @OptionalField()
  @IsMetadata()
  metadata?: Record<string, string>;
  /** The session to create. */
  @ApiPropertyOptional({ type: () => RequestedSessionDto })
  @OptionalField()
  @Type(() => RequestedSessionDto)
  @ValidateNested()
  @IsObject()
  session?: RequestedSessionDto;
}
