import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import { Public } from '../auth';
import { OpenApiDocumentHolder } from './openapi-document.holder';

@ApiTags('Meta')
@Public()
@Controller('openapi.json')
export class OpenApiController {
  constructor(private readonly holder: OpenApiDocumentHolder) {}

  @Get()
  @ApiOperation({ summary: 'The machine-readable description of this interface' })
  @ApiOkResponse({ description: 'OpenAPI 3 document', schema: { type: 'object', additionalProperties: true } })
  getOpenApiDocument(): OpenAPIObject {
    return this.holder.document;
  }
}
