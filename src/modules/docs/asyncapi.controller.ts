import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth';
import { buildAsyncApiDocument } from '../../platform/openapi/asyncapi-document';

@ApiTags('Meta')
@Public()
@Controller('asyncapi.json')
export class AsyncApiController {
  private readonly document = buildAsyncApiDocument();

  @Get()
  @ApiOperation({ summary: 'The machine-readable description of the WebSocket protocols (AsyncAPI 3)' })
  @ApiOkResponse({ description: 'AsyncAPI 3 document', schema: { type: 'object', additionalProperties: true } })
  getAsyncApiDocument(): object {
    return this.document;
  }
}
