import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { ErrorEnvelopeDto, HTTPValidationErrorDto } from './error.dto';

const ERROR_STATUSES: [number, string][] = [
  [400, 'Bad Request'],
  [401, 'Unauthorized'],
  [403, 'Forbidden'],
  [404, 'Not Found'],
  [409, 'Conflict'],
  [429, 'Too Many Requests'],
  [500, 'Internal Server Error'],
  [503, 'Service Unavailable: `capacity_exhausted`, `shutting_down` or `database_unavailable`, with `retry_after_ms`'],
];

/** Every status of the specification with its body, declared once per controller. */
export const ApiStandardErrors = (): ClassDecorator & MethodDecorator =>
  applyDecorators(
    ...ERROR_STATUSES.map(([status, description]) => ApiResponse({ status, description, type: ErrorEnvelopeDto })),
    ApiResponse({ status: 422, description: 'Validation Error', type: HTTPValidationErrorDto }),
  );

/** The three ways to present an API key; the global guard enforces exactly these. */
export const ApiKeyAuth = (): ClassDecorator & MethodDecorator =>
  applyDecorators(ApiBearerAuth('bearer'), ApiSecurity('token'), ApiSecurity('api_key'));
