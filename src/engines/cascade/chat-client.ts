/**
 * Streams an answer from an OpenAI-compatible `POST /v1/chat/completions` (vLLM, llama.cpp's
 * llama-server, Ollama's `/v1`, LocalAI): `stream: true`, Server-Sent Events of
 * `{choices: [{delta: {content}}]}` ending with `[DONE]`. An `error` object in the stream (vLLM
 * sends one when generation fails after the headers) fails the request like an HTTP error.
 */
import { SseParser, type SseEvent } from './sse-parser';
import { postStream, UpstreamError, upstreamErrorMessage } from './upstream-http';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A message of a conversation session, in the chat completions wire shape (tool calls and results). */
export type ChatWireMessage =
  | ChatMessage
  | {
      role: 'assistant';
      content: string | null;
      tool_calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** What a conversation's request adds to the body: tools, tool_choice, a token limit of its own. */
export interface ChatRequestExtras {
  tools?: { type: 'function'; function: { name: string; description: string; parameters: object } }[];
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
  max_tokens?: number;
}

/**
 * One piece of a streamed answer: text, a fragment of a tool call (its `index` ties fragments
 * together; `id` and `name` come with the first), the finish reason, or the token usage (sent
 * last by servers that honour `stream_options.include_usage`).
 */
export type ChatDelta =
  | { kind: 'text'; text: string }
  | { kind: 'tool_call'; index: number; id?: string; name?: string; arguments: string }
  | { kind: 'finish'; reason: string }
  | { kind: 'usage'; promptTokens: number; completionTokens: number };

export interface ChatClientOptions {
  /** The full endpoint, e.g. http://llama:8080/v1/chat/completions. */
  url: string;
  model: string;
  maxTokens: number;
  temperature: number;
  timeoutMs: number;
  /** Read for every request (a rotated key file is picked up); null sends no authorization. */
  apiKey: () => string | null;
}

const DONE = Symbol('done');

export class ChatClient {
  constructor(private readonly options: ChatClientOptions) {}

  /** Yields the answer's text as it is generated. */
  async *stream(messages: readonly ChatMessage[], signal: AbortSignal): AsyncGenerator<string, void, undefined> {
    const { url, model, maxTokens, temperature, timeoutMs, apiKey } = this.options;
    const parser = new SseParser();
    const body = { model, messages, stream: true, max_tokens: maxTokens, temperature };
    let done = false;
    for await (const chunk of postStream({ upstream: 'chat', url, body, apiKey: apiKey(), timeoutMs, signal })) {
      // After [DONE] the rest of the body is read, not cut: the connection stays reusable.
      if (done) continue;
      for (const event of parser.push(chunk)) {
        const text = readEvent(event);
        if (text === DONE) done = true;
        else if (text && !done) yield text;
      }
    }
    if (done) return;
    // A server that closes without `[DONE]` has still finished its answer.
    for (const event of parser.end()) {
      const text = readEvent(event);
      if (text === DONE) return;
      if (text) yield text;
    }
  }

  /** Yields every piece of the answer (text, tool calls, finish reason, usage) as it is generated. */
  async *streamDeltas(
    messages: readonly ChatWireMessage[],
    extras: ChatRequestExtras,
    signal: AbortSignal,
  ): AsyncGenerator<ChatDelta, void, undefined> {
    const { url, model, maxTokens, temperature, timeoutMs, apiKey } = this.options;
    const parser = new SseParser();
    const body = {
      model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: maxTokens,
      temperature,
      ...extras,
    };
    let done = false;
    const chunks = postStream({ upstream: 'chat', url, body, apiKey: apiKey(), timeoutMs, signal });
    for await (const chunk of chunks) {
      if (done) continue;
      for (const event of parser.push(chunk)) {
        const deltas = readDeltas(event);
        if (deltas === DONE) done = true;
        else if (!done) yield* deltas;
      }
    }
    if (done) return;
    for (const event of parser.end()) {
      const deltas = readDeltas(event);
      if (deltas === DONE) return;
      yield* deltas;
    }
  }
}

interface ChunkShape {
  choices?: Array<{
    delta?: {
      content?: unknown;
      tool_calls?: Array<{ index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } }>;
    };
    finish_reason?: unknown;
  }>;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
  error?: unknown;
}

function readDeltas(event: SseEvent): ChatDelta[] | typeof DONE {
  const data = event.data.trim();
  if (data === '[DONE]') return DONE;
  if (data === '') return [];
  let parsed: ChunkShape;
  try {
    parsed = JSON.parse(data) as ChunkShape;
  } catch {
    throw new UpstreamError('chat', 'protocol', 'the stream carried an event that is not JSON');
  }
  if (parsed.error !== undefined || event.event === 'error') {
    throw new UpstreamError('chat', 'protocol', upstreamErrorMessage(data) ?? 'the stream reported an error');
  }
  const out: ChatDelta[] = [];
  const choice = parsed.choices?.[0];
  const content = choice?.delta?.content;
  if (typeof content === 'string' && content !== '') out.push({ kind: 'text', text: content });
  for (const call of choice?.delta?.tool_calls ?? []) {
    if (typeof call.index !== 'number') throw new UpstreamError('chat', 'protocol', 'a tool call without an index');
    const args = call.function?.arguments;
    out.push({
      kind: 'tool_call',
      index: call.index,
      ...(typeof call.id === 'string' ? { id: call.id } : {}),
      ...(typeof call.function?.name === 'string' ? { name: call.function.name } : {}),
      arguments: typeof args === 'string' ? args : '',
    });
  }
  if (typeof choice?.finish_reason === 'string') out.push({ kind: 'finish', reason: choice.finish_reason });
  const usage = parsed.usage;
  if (usage && typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number') {
    out.push({ kind: 'usage', promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens });
  }
  return out;
}

function readEvent(event: SseEvent): string | typeof DONE | null {
  const data = event.data.trim();
  if (data === '[DONE]') return DONE;
  if (data === '') return null;
  let parsed: { choices?: Array<{ delta?: { content?: unknown } }>; error?: unknown };
  try {
    parsed = JSON.parse(data) as typeof parsed;
  } catch {
    throw new UpstreamError('chat', 'protocol', 'the stream carried an event that is not JSON');
  }
  if (parsed.error !== undefined || event.event === 'error') {
    throw new UpstreamError('chat', 'protocol', upstreamErrorMessage(data) ?? 'the stream reported an error');
  }
  const content = parsed.choices?.[0]?.delta?.content;
  return typeof content === 'string' ? content : null;
}
