/**
 * A conversation session's response request → the chat completions request: the session's
 * instructions (or, without any, the engine's own system prompt) as the system message, the
 * conversation's messages with tool calls and their results, and its tools as chat tools.
 */
import type { ResponseRequest } from '../../session-core';
import type { ChatRequestExtras, ChatWireMessage } from './chat-client';

export function chatMessagesOf(request: ResponseRequest, systemPrompt: string): ChatWireMessage[] {
  const system = request.instructions.trim() === '' ? systemPrompt : request.instructions;
  const out: ChatWireMessage[] = system === '' ? [] : [{ role: 'system', content: system }];
  for (const message of request.messages) {
    if (message.role === 'tool') {
      out.push({ role: 'tool', tool_call_id: message.callId, content: message.content });
    } else if ('toolCalls' in message) {
      out.push({
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.callId,
          type: 'function' as const,
          function: { name: call.name, arguments: call.arguments },
        })),
      });
    } else {
      out.push({ role: message.role, content: message.content });
    }
  }
  return out;
}

export function chatExtrasOf(request: ResponseRequest): ChatRequestExtras {
  const extras: ChatRequestExtras = {};
  if (request.maxOutputTokens !== null) extras.max_tokens = request.maxOutputTokens;
  // A request without tools sends none: some servers refuse an empty list or any tool_choice.
  if (request.tools.length === 0) return extras;
  extras.tools = request.tools.map((tool) => ({
    type: 'function' as const,
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
  const choice = request.toolChoice;
  extras.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
  return extras;
}
