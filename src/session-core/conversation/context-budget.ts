/**
 * The budget of what one response sends the model, and of what a session keeps. Whatever a client
 * sends, a response's request carries at most `contextTokens` estimated tokens: its instructions and
 * tools first, then the conversation's messages newest first, as many as fit (the newest one cut to
 * its end when even it alone does not). Counted here, in the session core, so that every engine that
 * forwards context (the cascade, a remote conversation engine) gets a request within it.
 *
 * The estimate needs no tokenizer and never counts low: four printable ASCII characters a token, any
 * other UTF-16 unit (CJK, emoji halves, control characters) one token each, and MESSAGE_TOKENS for
 * each message and tool call. In JSON each token of it takes at most 8 bytes (`\"` twice four
 * times; `\u0001` is 6), which bounds the request's body: 8 bytes a budgeted token, plus its fixed fields.
 */
import type { ConversationMessage, ResponseRequest } from '../engine/engine.port';
import type { ConversationItem } from './conversation.types';

export interface ConversationLimits {
  /** Estimated tokens one response's request may carry: instructions, tools and messages. */
  readonly contextTokens: number;
  /** Characters a session's items may hold together (text, transcripts, tool calls and outputs). */
  readonly retainedChars: number;
}

export const DEFAULT_CONVERSATION_LIMITS: ConversationLimits = { contextTokens: 32_000, retainedChars: 1_000_000 };

/** What each message and each tool call costs beyond its text (its role, its ids, the JSON around it). */
export const MESSAGE_TOKENS = 4;

/** Estimated tokens of `text`; counting stops once it passes `stopAbove` (the result is then above it). */
export function estimateTokens(text: string, stopAbove = Infinity): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code < 0x7f) ascii++;
    else other++;
    if ((i & 1023) === 1023 && Math.ceil(ascii / 4) + other > stopAbove) break;
  }
  return Math.ceil(ascii / 4) + other;
}

/** The end of `text` that fits in `tokens` (whole UTF-16 pairs). */
function tailWithin(text: string, tokens: number): string {
  let ascii = 0;
  let other = 0;
  let start = text.length;
  while (start > 0) {
    const code = text.charCodeAt(start - 1);
    const nextAscii = code >= 0x20 && code < 0x7f ? ascii + 1 : ascii;
    const nextOther = nextAscii === ascii ? other + 1 : other;
    if (Math.ceil(nextAscii / 4) + nextOther > tokens) break;
    ascii = nextAscii;
    other = nextOther;
    start--;
  }
  const first = text.charCodeAt(start);
  if (first >= 0xdc00 && first <= 0xdfff) start++; // never half a surrogate pair
  return text.slice(start);
}

/** Estimated tokens of the request's instructions and tools: what every request of it carries. */
export function fixedTokens(request: Pick<ResponseRequest, 'instructions' | 'tools'>): number {
  let tokens = estimateTokens(request.instructions);
  for (const tool of request.tools) {
    tokens += MESSAGE_TOKENS + estimateTokens(tool.name) + estimateTokens(tool.description);
    tokens += estimateTokens(JSON.stringify(tool.parameters));
  }
  return tokens;
}

function messageTokens(message: ConversationMessage, stopAbove: number): number {
  let tokens = MESSAGE_TOKENS + estimateTokens(message.content, stopAbove);
  if ('toolCalls' in message) {
    for (const call of message.toolCalls) {
      if (tokens > stopAbove) break;
      tokens += MESSAGE_TOKENS + estimateTokens(call.callId) + estimateTokens(call.name);
      tokens += estimateTokens(call.arguments, stopAbove);
    }
  }
  if (message.role === 'tool') tokens += estimateTokens(message.callId);
  return tokens;
}

export type FittedContext =
  | { readonly kind: 'fits'; readonly messages: ConversationMessage[]; readonly dropped: number }
  | { readonly kind: 'over'; readonly message: string };

/**
 * The newest messages that fit in the budget with the request's instructions and tools. A tool
 * result whose call was left out is left out too (chat servers refuse it alone).
 */
export function fitContext(
  request: Pick<ResponseRequest, 'instructions' | 'tools'>,
  messages: readonly ConversationMessage[],
  contextTokens: number,
): FittedContext {
  const fixed = fixedTokens(request);
  if (fixed > contextTokens) {
    return {
      kind: 'over',
      message: `The response's instructions and tools come to about ${fixed} tokens; the context budget is ${contextTokens}. Shorten them.`,
    };
  }
  let left = contextTokens - fixed;
  let from = messages.length;
  let cut: ConversationMessage | null = null;
  while (from > 0) {
    const message = messages[from - 1];
    const tokens = messageTokens(message, left);
    if (tokens <= left) {
      left -= tokens;
      from--;
      continue;
    }
    // Even the newest message alone is over: its end goes, as much as fits.
    const room = left - MESSAGE_TOKENS - (message.role === 'tool' ? estimateTokens(message.callId) : 0);
    if (from === messages.length && !('toolCalls' in message) && room > 0) {
      cut = { ...message, content: tailWithin(message.content, room) };
      from--;
    }
    break;
  }
  const kept = messages.slice(from);
  if (cut !== null) kept[0] = cut;
  while (kept.length > 0 && kept[0].role === 'tool') kept.shift();
  return { kind: 'fits', messages: kept, dropped: messages.length - kept.length };
}

/** Characters an item holds (what the retained budget counts). */
export function itemChars(item: ConversationItem): number {
  switch (item.type) {
    case 'message': {
      let chars = 0;
      for (const part of item.content) chars += 'text' in part ? part.text.length : (part.transcript?.length ?? 0);
      return chars;
    }
    case 'function_call':
      return item.callId.length + item.name.length + item.arguments.length;
    case 'function_call_output':
      return item.callId.length + item.output.length;
  }
}
