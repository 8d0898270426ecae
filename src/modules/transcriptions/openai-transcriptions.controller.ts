import { Controller, HttpCode, Post, Req, Res, StreamableFile } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PassThrough } from 'node:stream';
import { AppError } from '../../platform/errors/app-error';
import { STREAMED_BODY } from '../../platform/http/request-body';
import { ApiStandardErrors } from '../../platform/openapi/api-standard-errors.decorator';
import { Auth, Authenticated } from '../auth';
import type { ApiKeyPrincipal } from '../auth';
import { streamedUpload, untilClientLeaves } from './http-body';
import { parseOpenAiFields } from './openai-request';
import { fullText, render, sseEvent } from './render/openai-formats';
import { TranscriptionsService, UPLOAD_LIMIT_BYTES } from './transcriptions.service';
import { readMultipartUpload } from './upload/upload-reader';
import { ApiUpstreamErrors, TRANSCRIPTION_FORM_SCHEMA, TRANSCRIPTION_RESPONSE_CONTENT } from './transcriptions.openapi';

@ApiTags('Transcriptions')
@Authenticated()
@ApiStandardErrors()
@Controller('audio')
export class OpenAiTranscriptionsController {
  constructor(private readonly transcriptions: TranscriptionsService) {}

  @Post('transcriptions')
  @HttpCode(200)
  @RouteConfig(STREAMED_BODY)
  @ApiOperation({
    summary: 'Transcribe an audio file (OpenAI-compatible)',
    description:
      'A batch session of type `transcription`, billed by the audio duration. Multipart form, file up to 25 MB (413 beyond); the container is read from the bytes. `stream=true` answers server-sent events.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: TRANSCRIPTION_FORM_SCHEMA })
  @ApiOkResponse({ description: 'The transcript in the asked format', content: TRANSCRIPTION_RESPONSE_CONTENT })
  @ApiUpstreamErrors()
  async create(
    @Auth() principal: ApiKeyPrincipal,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string | object | StreamableFile> {
    const body = streamedUpload(req.body, 'multipart/form-data');
    const workspace = await this.transcriptions.workspace();
    let disposeLater = false;
    try {
      const form = await readMultipartUpload(body, workspace.dir, UPLOAD_LIMIT_BYTES);
      const request = parseOpenAiFields(form.fields);
      this.transcriptions.resolveModel(request.model, request.language);
      if (form.file === null) throw new AppError('invalid_parameter', 'file is required', { param: 'file' });
      const signal = untilClientLeaves(reply);
      if (!request.stream) {
        const result = await this.transcriptions.transcribe(principal, form.file, workspace, {
          ...request,
          dialect: 'transcriptions',
          signal,
        });
        const rendered = render(result, request.responseFormat, request.granularities);
        void reply.header('content-type', rendered.contentType);
        return rendered.body;
      }
      // Events from the first piece on; an error before it is an ordinary HTTP error.
      const events = new PassThrough();
      let started: (() => void) | null = null;
      const firstOutput = new Promise<void>((resolve) => (started = resolve));
      const work = this.transcriptions.transcribe(principal, form.file, workspace, {
        ...request,
        dialect: 'transcriptions',
        signal,
        onSegments: (segments) => {
          for (const segment of segments) {
            events.write(sseEvent({ type: 'transcript.text.delta', delta: `${segment.text} ` }));
          }
          started?.();
        },
      });
      await Promise.race([firstOutput, work]);
      disposeLater = true;
      work
        .then((result) => events.end(sseEvent({ type: 'transcript.text.done', text: fullText(result) })))
        .catch((error: unknown) => {
          const message = error instanceof AppError ? error.message : 'The transcription failed';
          events.end(`event: error\ndata: ${JSON.stringify({ error: { message, type: 'server_error' } })}\n\n`);
        })
        .finally(() => void workspace.dispose());
      return new StreamableFile(events, { type: 'text/event-stream' });
    } finally {
      if (!disposeLater) await workspace.dispose();
    }
  }
}
