/**
 * Server-Sent Events (the WHATWG event-stream format) for streamed chat completions: bytes in,
 * complete events out. eventsource-parser splits the lines; this adds what it leaves to the caller:
 * UTF-8 decoding across chunks, the `message` default name, and the last event at the stream's end.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';

export interface SseEvent {
  /** `message` unless the server named it. */
  event: string;
  data: string;
}

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly parser: EventSourceParser;
  private events: SseEvent[] = [];
  /** A chunk ended in CR, handed on as CRLF: an LF starting the next chunk belongs to that line end. */
  private pendingCr = false;

  constructor() {
    this.parser = createParser({
      onEvent: ({ event, data }) => this.events.push({ event: event ?? 'message', data }),
    });
  }

  /** Feeds bytes; returns the events they completed. */
  push(chunk: Uint8Array): SseEvent[] {
    let text = this.decoder.decode(chunk, { stream: true });
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    // The parser would hold a final CR until it sees whether an LF follows; the event it ends is due now.
    this.pendingCr = text.endsWith('\r');
    return this.feed(this.pendingCr ? `${text}\n` : text);
  }

  /**
   * The stream ended. The standard drops an event that lacks its closing blank line; some servers
   * end on `data: [DONE]` and a single newline, so the last event is delivered anyway.
   */
  end(): SseEvent[] {
    return this.feed(`${this.decoder.decode()}\n\n`);
  }

  private feed(text: string): SseEvent[] {
    this.parser.feed(text);
    const events = this.events;
    this.events = [];
    return events;
  }
}
