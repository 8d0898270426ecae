/**
 * A fake OpenAI-compatible chat completions server, written from the published protocol
 * (`POST /v1/chat/completions`, `stream: true`): `chat.completion.chunk` objects as Server-Sent
 * Events, the first carrying the assistant role, the last an empty delta with `finish_reason`,
 * then `data: [DONE]`. Errors are `{error: {message, type, code}}` with an HTTP status. What it
 * answers is decided per request by a plan, so a test can script a reply, a failure or a stall.
 */
import type { ServerResponse } from 'node:http';
import { pause, RecordingServer, type RecordedRequest } from './recording-server';

export type ChatPlan =
  /**
   * Streams `pieces` as content deltas, `delayMs` apart (the wire chunks may be split further);
   * `withoutUsage`: no usage chunk, as a server that ignores `stream_options.include_usage`.
   */
  | { kind: 'reply'; pieces: string[]; delayMs?: number; splitBytes?: number; withoutUsage?: boolean }
  | { kind: 'error'; status: number; message: string; type: string; code: string | null }
  /** Accepts the request and never answers. */
  | { kind: 'hang' }
  /** Streams `pieces`, then stops sending without ending the response. */
  | { kind: 'stall'; pieces: string[] }
  /**
   * Calls tools: each call's arguments streamed in `argumentPieces` fragments (the first fragment
   * carries its id and name, as OpenAI streams them), then finish_reason `tool_calls`.
   */
  | { kind: 'tool_calls'; calls: { id: string; name: string; argumentPieces: string[] }[]; delayMs?: number };

/** The usage chunk a server sends last when asked (`stream_options.include_usage`). */
export const FAKE_USAGE = { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 };

export async function startFakeChatServer(plan: (request: RecordedRequest) => ChatPlan): Promise<RecordingServer> {
  return RecordingServer.start(async (request, res) => {
    if (request.method !== 'POST' || request.path !== '/v1/chat/completions') return notFound(res);
    const body = request.body as { model?: unknown; messages?: unknown; stream?: unknown };
    if (typeof body?.model !== 'string' || !Array.isArray(body.messages) || body.stream !== true) {
      return sendError(res, 400, 'model, messages and stream: true are required', 'invalid_request_error', null);
    }
    const chosen = plan(request);
    if (chosen.kind === 'error') return sendError(res, chosen.status, chosen.message, chosen.type, chosen.code);
    if (chosen.kind === 'hang') return;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      })}\n\n`;
    const write = async (text: string, splitBytes?: number) => {
      if (!splitBytes) return void res.write(text);
      // Cut the wire stream anywhere, even inside a UTF-8 character: the client must reassemble.
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length && !res.destroyed; at += splitBytes) {
        res.write(bytes.subarray(at, at + splitBytes));
        await pause(res, 1);
      }
    };
    await write(': keep-alive comment\n\n' + chunk({ role: 'assistant', content: '' }, null));
    const usage =
      (body as { stream_options?: { include_usage?: unknown } }).stream_options?.include_usage === true &&
      !(chosen.kind === 'reply' && chosen.withoutUsage === true);
    const usageChunk = () =>
      `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model: body.model, choices: [], usage: FAKE_USAGE })}\n\n`;
    if (chosen.kind === 'tool_calls') {
      for (const [index, call] of chosen.calls.entries()) {
        for (const [i, piece] of call.argumentPieces.entries()) {
          if (res.destroyed) return;
          if (chosen.delayMs) await pause(res, chosen.delayMs);
          const fn = i === 0 ? { name: call.name, arguments: piece } : { arguments: piece };
          const head = i === 0 ? { id: call.id, type: 'function' } : {};
          await write(chunk({ tool_calls: [{ index, ...head, function: fn }] }, null));
        }
      }
      await write(chunk({}, 'tool_calls') + (usage ? usageChunk() : '') + 'data: [DONE]\n\n');
      return void res.end();
    }
    const delayMs = chosen.kind === 'reply' ? (chosen.delayMs ?? 0) : 0;
    const splitBytes = chosen.kind === 'reply' ? chosen.splitBytes : undefined;
    for (const piece of chosen.pieces) {
      if (res.destroyed) return;
      if (delayMs > 0) await pause(res, delayMs);
      if (res.destroyed) return;
      await write(chunk({ content: piece }, null), splitBytes);
    }
    if (chosen.kind === 'stall') return;
    await write(chunk({}, 'stop') + (usage ? usageChunk() : '') + 'data: [DONE]\n\n', splitBytes);
    res.end();
  });
}

function sendError(res: ServerResponse, status: number, message: string, type: string, code: string | null): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type, code } }));
}

function notFound(res: ServerResponse): void {
  sendError(res, 404, 'not found', 'invalid_request_error', null);
}

export interface ChatRequestBody {
  model: string;
  // content is null on an assistant message that only calls tools.
  messages: Array<{ role: string; content: string; tool_calls?: unknown[]; tool_call_id?: string }>;
  tools?: unknown[];
  tool_choice?: unknown;
  stream: boolean;
  max_tokens?: number;
  temperature?: number;
}

/** The request as the fake received it (validated by the fake before it answered). */
export function chatBody(request: RecordedRequest): ChatRequestBody {
  return request.body as ChatRequestBody;
}
