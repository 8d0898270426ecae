import { SseParser } from './sse-parser';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('SseParser', () => {
  it('dispatches an event at each blank line, joining data lines and skipping comments', () => {
    const parser = new SseParser();
    expect(parser.push(bytes(': ping\n\ndata: {"a":1}\n\ndata: one\ndata: two\n\n'))).toEqual([
      { event: 'message', data: '{"a":1}' },
      { event: 'message', data: 'one\ntwo' },
    ]);
  });

  it('reassembles events cut anywhere, including inside a UTF-8 character and a CRLF', () => {
    const wire = bytes('event: error\r\ndata: {"t":"héllo 👋"}\r\n\r\ndata:[DONE]\r\n\r\n');
    for (let size = 1; size <= 7; size++) {
      const parser = new SseParser();
      const events = [];
      for (let at = 0; at < wire.length; at += size) events.push(...parser.push(wire.subarray(at, at + size)));
      expect(events).toEqual([
        { event: 'error', data: '{"t":"héllo 👋"}' },
        { event: 'message', data: '[DONE]' },
      ]);
    }
  });

  it('takes lone CR line ends, and a field without a colon', () => {
    const parser = new SseParser();
    expect(parser.push(bytes('data\rdata: x\r\r'))).toEqual([{ event: 'message', data: '\nx' }]);
  });

  it('delivers a last event that lacks its closing blank line when the stream ends', () => {
    const parser = new SseParser();
    expect(parser.push(bytes('data: [DONE]'))).toEqual([]);
    expect(parser.end()).toEqual([{ event: 'message', data: '[DONE]' }]);
  });
});
