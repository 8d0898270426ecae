import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiStandardErrors } from '../../platform/openapi/api-standard-errors.decorator';
import { Auth, Authenticated } from '../auth';
import type { ApiKeyPrincipal } from '../auth';
import { ListSessionsQueryDto } from './dto/list-sessions.dto';
import { SessionResponseDto, SessionListResponseDto } from './dto/session.dto';
import { SessionsService } from './sessions.service';

@ApiTags('Sessions')
@Authenticated()
@ApiStandardErrors()
@Controller('sessions')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Get()
  @ApiOperation({ summary: 'List sessions, newest first, one page at a time' })
  @ApiOkResponse({ type: SessionListResponseDto })
  listSessions(
    @Auth() principal: ApiKeyPrincipal,
    @Query() query: ListSessionsQueryDto,
  ): Promise<SessionListResponseDto> {
    return this.sessions.list(principal, query);
  }

  @Get(':session_id')
  @ApiOperation({ summary: 'Get one session' })
  @ApiParam({ name: 'session_id', description: "The session's id (`sess_…`) or, for a call, its call id (`rtc_…`)" })
  @ApiOkResponse({ type: SessionResponseDto })
  getSession(@Auth() principal: ApiKeyPrincipal, @Param('session_id') id: string): Promise<SessionResponseDto> {
    return this.sessions.get(principal, id);
  }

  @Delete(':session_id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a session: revokes its secret or ends it, and hides it; its usage stays' })
  @ApiNoContentResponse({ description: 'Deleted' })
  deleteSession(@Auth() principal: ApiKeyPrincipal, @Param('session_id') id: string): Promise<void> {
    return this.sessions.delete(principal, id);
  }
}
