/**
 * The session's conversation so far, as chat messages for the next answer. An answer's text is
 * read when the next request is built: what was heard of it, so an answer cut by barge-in is
 * remembered as far as it got. Consecutive messages of one role are merged (a turn that failed or
 * was interrupted before any speech leaves two user messages in a row, which some chat templates
 * refuse), and only the last `maxMessages` are sent, starting with a user message.
 */
import type { ChatMessage } from './chat-client';

interface Entry {
  role: 'user' | 'assistant';
  text: () => string;
}

export class Conversation {
  private readonly entries: Entry[] = [];

  constructor(
    private readonly systemPrompt: string,
    private readonly maxMessages: number,
  ) {}

  addUser(text: string): void {
    this.entries.push({ role: 'user', text: () => text });
  }

  /** `text` is read lazily: the answer may still be playing. */
  addAssistant(text: () => string): void {
    this.entries.push({ role: 'assistant', text });
  }

  messages(): ChatMessage[] {
    const merged: ChatMessage[] = [];
    for (const entry of this.entries) {
      const text = entry.text().trim();
      if (text === '') continue;
      const last = merged[merged.length - 1];
      if (last?.role === entry.role) last.content += `\n${text}`;
      else merged.push({ role: entry.role, content: text });
    }
    let recent = merged.slice(-this.maxMessages);
    while (recent.length > 0 && recent[0].role !== 'user') recent = recent.slice(1);
    // Older entries are never sent again: keep memory bounded on a long session.
    if (this.entries.length > 4 * this.maxMessages) this.entries.splice(0, this.entries.length - 2 * this.maxMessages);
    return this.systemPrompt === '' ? recent : [{ role: 'system', content: this.systemPrompt }, ...recent];
  }
}
