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
