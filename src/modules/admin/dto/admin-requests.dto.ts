import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import { NullableField, OptionalField } from '../../../platform/validation/request-field.validators';

const USD = /^-?\d{1,9}(\.\d{1,6})?$/;
const USD_NOT_NEGATIVE = /^\d{1,9}(\.\d{1,6})?$/;

export class NameDto {
  @MaxLength(200)
  @MinLength(1)
  @IsString()
  name: string;
}

export class RotateKeyDto {
  /** The new key's name; the old key's by default. */
  @OptionalField()
  @MaxLength(200)
  @MinLength(1)
  @IsString()
  name?: string;
}

export class AddCreditDto {
  /** USD to add, as a decimal string; a negative amount takes credit back (a correction). */
  @ApiProperty({ example: '25.00' })
  @Matches(USD, { message: 'usd must be a decimal USD amount such as "25" or "-1.50"' })
  @IsString()
  usd: string;
  @OptionalField()
  @MaxLength(500)
  @IsString()
  note?: string;
}

export class CreditLimitDto {
  /** How far below zero the balance may fall, USD as a decimal string; null lifts the limit. */
  @ApiProperty({ type: String, nullable: true, example: '5.00' })
  @ValidateIf((_object: object, value: unknown) => value !== null)
  @Matches(USD_NOT_NEGATIVE, { message: 'usd must be a USD amount of zero or more, or null' })
  @IsString()
  usd: string | null;
}

export class LimitsDto {
  /** The project's own concurrency limit; null returns to the configured default; absent leaves it. */
  @ApiPropertyOptional({ type: 'integer', nullable: true })
  @NullableField()
  @Max(100_000)
  @Min(1)
  @IsInt()
  concurrent_sessions?: number | null;
  /** Requests per minute for each of the project's keys; null returns to the default; absent leaves it. */
  @ApiPropertyOptional({ type: 'integer', nullable: true })
  @NullableField()
  @Max(1_000_000)
  @Min(1)
  @IsInt()
  requests_per_minute?: number | null;
}

export class HistoryQueryDto {
  /** How many of the latest changes, 1..10000. */
  @IsOptional()
  @Max(10_000)
  @Min(1)
  @IsInt()
  last?: number = 50;
}
