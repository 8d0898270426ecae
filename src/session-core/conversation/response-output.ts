/**
 * What a response puts out: its message (text, or the transcript of its voice) and its function
 * calls, each an output item of the response and, unless it is out of band (`conversation: none`),
 * an item of the conversation.
 */
import { copy, emit, type ConversationEffect } from './conversation-effects';
import type { ConversationIds } from './conversation-ids';
import type { ConversationItems } from './conversation-items';
import type { ContentPart, ConversationItem, OutputRef, ResponseView } from './conversation.types';

/** The part of a response its output is written to. */
export interface OutputState {
  view: ResponseView;
  /** The answer's message item, once it has output. */
  message: { item: Extract<ConversationItem, { type: 'message' }>; ref: OutputRef; text: string } | null;
}

export class ResponseOutput {
  constructor(
    private readonly items: ConversationItems,
    private readonly ids: ConversationIds,
  ) {}

  text(response: OutputState, delta: string): ConversationEffect[] {
    const out =
      response.message === null ? this.messageOf(response, this.ids.item(), { type: 'output_text', text: '' }) : [];
    const message = response.message!;
    const part = message.item.content[0] as Extract<ContentPart, { type: 'output_text' }>;
    part.text += delta;
    message.text += delta;
    out.push(emit({ type: 'output_text_delta', ref: message.ref, delta, audio: false }));
    return out;
  }

  functionCall(response: OutputState, call: { callId: string; name: string; arguments: string }) {
    const id = this.ids.item();
    const callId = call.callId === '' ? `call_${id}` : call.callId;
    const item: ConversationItem = {
      id,
      type: 'function_call',
      status: 'in_progress',
      callId,
      name: call.name,
      arguments: '',
    };
    const outputIndex = response.view.output.length;
    response.view.output.push(item);
    const ref = { responseId: response.view.id, itemId: id, outputIndex, contentIndex: 0 };
    const out = [emit({ type: 'output_item_added', responseId: response.view.id, outputIndex, item: { ...item } })];
    if (response.view.conversation === 'auto') {
      const previousItemId = this.items.insert(item) ?? null;
      out.push(emit({ type: 'item_added', item: { ...item }, previousItemId }));
    }
    if (call.arguments !== '') {
      out.push(emit({ type: 'function_call_arguments_delta', ref, callId, delta: call.arguments }));
    }
    item.arguments = call.arguments;
    item.status = 'completed';
    out.push(emit({ type: 'function_call_arguments_done', ref, callId, name: call.name, arguments: call.arguments }));
    if (response.view.conversation === 'auto') {
      out.push(emit({ type: 'item_done', item, previousItemId: this.items.previousOf(id) }));
    }
    out.push(emit({ type: 'output_item_done', responseId: response.view.id, outputIndex, item }));
    return out;
  }

  /** The response's message item begins: output item, conversation item, content part. */
  messageOf(response: OutputState, itemId: string, part: ContentPart): ConversationEffect[] {
    if (response.message !== null) return [];
    const item: Extract<ConversationItem, { type: 'message' }> = {
      id: itemId,
      type: 'message',
      role: 'assistant',
      status: 'in_progress',
      content: [],
    };
    const outputIndex = response.view.output.length;
    response.view.output.push(item);
    const ref = { responseId: response.view.id, itemId, outputIndex, contentIndex: 0 };
    response.message = { item, ref, text: '' };
    const out = [emit({ type: 'output_item_added', responseId: response.view.id, outputIndex, item: copy(item) })];
    if (response.view.conversation === 'auto') {
      const previousItemId = this.items.insert(item) ?? null;
      out.push(emit({ type: 'item_added', item: copy(item), previousItemId }));
    }
    item.content.push(part);
    out.push(emit({ type: 'content_part_added', ref, part: { ...part } }));
    return out;
  }

  /** The ended response's message is done, as its status says (completed, else incomplete). */
  messageDone(response: OutputState): ConversationEffect[] {
    const view = response.view;
    const out: ConversationEffect[] = [];
    const message = response.message;
    if (message !== null) {
      const { item, ref } = message;
      item.status = view.status === 'completed' ? 'completed' : 'incomplete';
      const part = item.content[0];
      const audio = part.type === 'output_audio';
      if (audio) out.push(emit({ type: 'output_audio_done', ref }));
      out.push(emit({ type: 'output_text_done', ref, text: message.text, audio }));
      out.push(emit({ type: 'content_part_done', ref, part: { ...part } }));
      if (view.conversation === 'auto' && this.items.has(item.id)) {
        out.push(emit({ type: 'item_done', item: copy(item), previousItemId: this.items.previousOf(item.id) }));
      }
      out.push(emit({ type: 'output_item_done', responseId: view.id, outputIndex: ref.outputIndex, item: copy(item) }));
    }
    return out;
  }
}
