/**
 * What a response's text work is billed as: the tokens its upstream reported, or, when it reported
 * none (a server without `include_usage`, a response cut before its usage came), an estimate of one
 * token per 4 bytes of UTF-8, the usual ratio for English text (CJK text gives more bytes per token).
 */
import type { ResponseRequest, TokenUsage } from '../engine/engine.port';

export const BYTES_PER_TOKEN = 4;

/** The UTF-8 bytes of what a request sends the model: instructions, tools, every message. */
export function requestBytes(request: ResponseRequest): number {
  let bytes = Buffer.byteLength(request.instructions);
  for (const tool of request.tools) bytes += Buffer.byteLength(JSON.stringify(tool));
  for (const message of request.messages) {
    bytes += Buffer.byteLength(message.content);
    if ('toolCalls' in message) {
      for (const call of message.toolCalls) bytes += Buffer.byteLength(call.name) + Buffer.byteLength(call.arguments);
    }
  }
  return bytes;
}

export function estimatedTokens(inputBytes: number, outputBytes: number): TokenUsage {
  return {
    inputTokens: Math.ceil(inputBytes / BYTES_PER_TOKEN),
    outputTokens: Math.ceil(outputBytes / BYTES_PER_TOKEN),
  };
}
