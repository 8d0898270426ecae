import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiStandardErrors } from '../../platform/openapi/api-standard-errors.decorator';
import { Auth, Authenticated } from '../auth';
import type { ApiKeyPrincipal } from '../auth';
import { SessionsService } from './sessions.service';

/** OpenAI's call control (`/v1/realtime/calls/{call_id}/…`): hang-up, for every call transport. */
@ApiTags('Sessions')
@Authenticated()
@ApiStandardErrors()
@Controller('realtime/calls')
export class CallsController {
  constructor(private readonly sessions: SessionsService) {}

  @Post(':call_id/hangup')
  @HttpCode(204)
  @ApiOperation({ summary: 'Hang up a running call: its session ends (close_requested) and its stream closes' })
  @ApiParam({ name: 'call_id', description: "The call's id (`rtc_…`) or its session's id (`sess_…`)" })
  @ApiNoContentResponse({ description: 'Hung up' })
  hangUp(@Auth() principal: ApiKeyPrincipal, @Param('call_id') id: string): Promise<void> {
    return this.sessions.hangUp(principal, id);
  }
}
