import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiStandardErrors } from '../../platform/openapi/api-standard-errors.decorator';
import { Auth, Authenticated } from '../auth';
import type { PresentedApiKey } from '../auth';
import { ClientSecretsService } from './client-secrets.service';
import { ClientSecretRequestDto } from './dto/client-secret-request.dto';
import { ClientSecretResponseDto, RealtimeToolChoiceFunctionResponseDto } from './dto/client-secret-response.dto';
import { RealtimeToolChoiceFunctionRequestDto } from './dto/requested-session.dto';
import { CurrentRequestOrigin } from './request-origin.decorator';
import type { RequestOrigin } from './socket-urls';

@ApiTags('Client secrets')
@Authenticated({ checksKeyItself: true })
@ApiStandardErrors()
// Referenced from oneOf unions (tool_choice), which the schema scan does not follow.
@ApiExtraModels(RealtimeToolChoiceFunctionRequestDto, RealtimeToolChoiceFunctionResponseDto)
@Controller()
export class ClientSecretsController {
  constructor(private readonly secrets: ClientSecretsService) {}

  @Post('live/client_secrets')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a session and return its client secret' })
  @ApiOkResponse({ type: ClientSecretResponseDto })
  createLiveClientSecret(
    @Auth() key: PresentedApiKey,
    @Body() body: ClientSecretRequestDto,
    @CurrentRequestOrigin() origin: RequestOrigin,
  ): Promise<ClientSecretResponseDto> {
    return this.secrets.create(key, body, origin, 'live');
  }

  @Post('realtime/client_secrets')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Create a transcription session, or with session.type "realtime" a conversation configured by its settings (OpenAI Realtime-compatible), and return its client secret',
  })
  @ApiOkResponse({ type: ClientSecretResponseDto })
  createRealtimeClientSecret(
    @Auth() key: PresentedApiKey,
    @Body() body: ClientSecretRequestDto,
    @CurrentRequestOrigin() origin: RequestOrigin,
  ): Promise<ClientSecretResponseDto> {
    return this.secrets.create(key, body, origin, 'realtime');
  }
}
