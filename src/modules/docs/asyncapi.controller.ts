import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth';

@ApiTags('Meta')
@Public()
@Controller('asyncapi.json')
export class AsyncApiController {
  /** Built from the socket layer's dialects, which this module does not import: set by the app at setup. */
  document: object | null = null;

  @Get()
  @ApiOperation({ summary: 'The machine-readable description of the WebSocket protocols (AsyncAPI 3)' })
  @ApiOkResponse({ description: 'AsyncAPI 3 document', schema: { type: 'object', additionalProperties: true } })
  getAsyncApiDocument(): object {
    if (!this.document) throw new Error('AsyncAPI document requested before the app was configured');
    return this.document;
  }
}
