import { Controller, Headers, HttpCode, Options, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FailedAuthThrottle, Public } from '../../modules/auth';
import { AppError } from '../../platform/errors/app-error';
import { readCallForm } from './multipart-offer';
import { WebRtcCalls, type CallRequest } from './webrtc-calls.service';

/**
 * The headers a browser page may send to the calls endpoint from another origin: the credential, the
 * body's type, the Agents SDK's marker, and the `openai` SDK's own (`x-stainless-*`, OpenAI-Beta).
 */
const ALLOWED_REQUEST_HEADER =
  /^(authorization|content-type|accept|x-openai-agents-sdk|openai-beta|x-stainless-[a-z0-9-]+)$/;

/**
 * `POST /v1/realtime/calls` (and the older `POST /v1/realtime?model=…`): a WebRTC offer in, the answer
 * out. CORS is open on these routes only, so that a page on the app's own origin can start a call with
 * its client secret; nothing else is widened.
 */
@ApiExcludeController() // an SDP body and answer; documented in docs/api.md ("WebRTC calls")
@Public() // the credential (a client secret or an API key) is checked by the call's admission
@Controller('realtime')
export class WebRtcCallsController {
  constructor(
    private readonly calls: WebRtcCalls,
    private readonly throttle: FailedAuthThrottle,
  ) {}

  @Options('calls')
  @HttpCode(204)
  preflight(
    @Headers('access-control-request-headers') asked: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): void {
    const allowed = (asked ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => ALLOWED_REQUEST_HEADER.test(h));
    cors(reply);
    reply.header('access-control-allow-methods', 'POST, OPTIONS');
    reply.header(
      'access-control-allow-headers',
      ['authorization', 'content-type', ...allowed].filter(unique).join(', '),
    );
    reply.header('access-control-max-age', '600');
  }

  @Post('calls')
  create(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    cors(reply);
    return this.answer(req, reply, callRequestOf(req));
  }

  @Options()
  @HttpCode(204)
  preflightOlder(
    @Headers('access-control-request-headers') asked: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): void {
    this.preflight(asked, reply);
  }

  /** The older form: `?model=` and a raw offer. */
  @Post()
  createOlder(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    cors(reply);
    if (!isSdp(req.headers['content-type'])) throw unsupported();
    return this.answer(req, reply, callRequestOf(req));
  }

  private async answer(req: FastifyRequest, reply: FastifyReply, call: CallRequest): Promise<string> {
    try {
      const { callId, answer } = await this.calls.create(req.raw, call);
      reply.status(201);
      reply.header('content-type', 'application/sdp');
      reply.header('location', `/v1/realtime/calls/${callId}`);
      return answer;
    } catch (error) {
      // An authentication refusal counts against the address, as on REST (and may become a 429).
      throw await this.throttle.judge(error, this.throttle.addressOf(req.raw));
    }
  }
}

function callRequestOf(req: FastifyRequest): CallRequest {
  const type = req.headers['content-type'];
  const body = req.body;
  if (isSdp(type) && typeof body === 'string') return { sdp: body, session: null };
  if (/^multipart\/form-data\b/i.test(type ?? '') && Buffer.isBuffer(body)) return readCallForm(body, type!);
  throw unsupported();
}

const isSdp = (type: string | undefined): boolean => /^application\/sdp\b/i.test(type ?? '');
const unsupported = (): AppError =>
  new AppError(
    'unsupported_media_type',
    'Send the offer as application/sdp, or as multipart/form-data with an sdp part',
  );
const unique = (value: string, index: number, all: string[]): boolean => all.indexOf(value) === index;

function cors(reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-expose-headers', 'Location');
}
