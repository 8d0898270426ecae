/**
 * Incremental Server-Sent Events parser (the WHATWG event-stream format) for streamed chat
 * completions: bytes in, complete events out. Chunks may split a line, or a UTF-8 character,
 * anywhere; lines end in LF, CRLF or CR; `:` lines are comments (keep-alives); an event is
 * dispatched at a blank line, its `data:` lines joined with LF.
 */
export interface SseEvent {
  /** `message` unless the server named it. */
  event: string;
  data: string;
}

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  private data: string[] = [];
  private eventName = '';
  /** A chunk that ended in CR: an LF starting the next chunk belongs to the same line end. */
  private pendingCr = false;

  /** Feeds bytes; returns the events they completed. */
  push(chunk: Uint8Array): SseEvent[] {
    let text = this.decoder.decode(chunk, { stream: true });
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(this.buffer.slice(start, i), events);
      if (c === 13) {
        if (i + 1 === this.buffer.length) this.pendingCr = true;
        else if (this.buffer.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  /**
   * The stream ended. The standard drops an event that lacks its closing blank line; some servers
   * end on `data: [DONE]` and a single newline, so the last event is delivered anyway.
   */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.buffer !== '') this.line(this.buffer, events);
    this.buffer = '';
    this.line('', events);
    return events;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push({ event: this.eventName || 'message', data: this.data.join('\n') });
      this.data = [];
      this.eventName = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.eventName = value;
  }
}
