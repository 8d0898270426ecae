import { Controller, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { AppError } from '../../platform/errors/app-error';
import { StreamedBody, STREAMED_BODY, UnreadableBody } from '../../platform/http/request-body';
import { ApiStandardErrors } from '../../platform/openapi/api-standard-errors.decorator';
import { Auth, Authenticated } from '../auth';
import type { ApiKeyPrincipal } from '../auth';
import { parseListenQuery } from './deepgram-request';
import { untilClientLeaves } from './http-body';
import { deepgramResponse } from './render/deepgram-response';
import { TranscriptionsService, UPLOAD_LIMIT_BYTES } from './transcriptions.service';
import { ApiUpstreamErrors, LISTEN_BODY_SCHEMA, LISTEN_RESPONSE_SCHEMA } from './transcriptions.openapi';
import { saveRawUpload } from './upload/upload-reader';
import { fetchAudioUrl } from './upload/url-fetcher';

@ApiTags('Transcriptions')
@Authenticated()
@ApiStandardErrors()
@Controller()
export class DeepgramListenController {
  constructor(
    private readonly transcriptions: TranscriptionsService,
    private readonly config: AppConfig,
  ) {}

  @Post('listen')
  @HttpCode(200)
  @RouteConfig(STREAMED_BODY)
  @ApiOperation({
    summary: 'Transcribe an audio file (Deepgram prerecorded-compatible)',
    description:
      'Raw audio body (`audio/*`, up to 25 MB) or `{"url": …}` when the operator allows its host. `Authorization: Token <key>`. `metadata.request_id` is the session id.',
  })
  @ApiConsumes('audio/wav', 'audio/mpeg', 'audio/flac', 'audio/ogg', 'audio/webm', 'audio/mp4', 'application/json')
  @ApiBody({ schema: LISTEN_BODY_SCHEMA })
  @ApiOkResponse({ description: "Deepgram's prerecorded response", schema: LISTEN_RESPONSE_SCHEMA })
  @ApiUpstreamErrors()
  async listen(
    @Auth() principal: ApiKeyPrincipal,
    @Query() query: Record<string, unknown>,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<object> {
    const options = parseListenQuery(query);
    this.transcriptions.resolveModel(options.model, options.language);
    const body = req.body;
    if (body instanceof UnreadableBody) throw body.error;
    const workspace = await this.transcriptions.workspace();
    try {
      const upload =
        body instanceof StreamedBody
          ? await saveRawUpload(body, workspace.dir, UPLOAD_LIMIT_BYTES)
          : await fetchAudioUrl(urlOf(body), this.config.transcriptions, workspace.dir, UPLOAD_LIMIT_BYTES);
      const result = await this.transcriptions.transcribe(principal, upload, workspace, {
        ...options,
        dialect: 'listen-prerecorded',
        signal: untilClientLeaves(reply),
      });
      void reply.header('dg-request-id', result.sessionId);
      return deepgramResponse(result, options);
    } finally {
      await workspace.dispose();
    }
  }
}

function urlOf(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('url' in body)) {
    throw new AppError('invalid_request', 'Send the audio as the body (audio/*), or a JSON body {"url": "…"}', {
      param: 'body',
    });
  }
  return (body as { url: unknown }).url;
}
