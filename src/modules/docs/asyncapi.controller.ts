import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ASYNCAPI_DOCUMENT } from '../../platform/openapi/asyncapi-document';
import { Public } from '../auth';

@ApiTags('Meta')
@Public()
@Controller('asyncapi.json')
export class AsyncApiController {
  /** Built from the socket layer's dialects, which this module does not import: provided through the app. */
  constructor(@Inject(ASYNCAPI_DOCUMENT) private readonly document: object) {}

  @Get()
  @ApiOperation({ summary: 'The machine-readable description of the WebSocket protocols (AsyncAPI 3)' })
  @ApiOkResponse({ description: 'AsyncAPI 3 document', schema: { type: 'object', additionalProperties: true } })
  getAsyncApiDocument(): object {
    return this.document;
  }
}
