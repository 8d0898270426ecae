import { DEFAULT_MAX_MESSAGE_BYTES, parseLiveFrame, type LiveParseContext } from './live.protocol';

const CONTEXT: LiveParseContext = { lock: null, maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES };
const parse = (frame: string | Buffer, isBinary = false, context = CONTEXT) => parseLiveFrame(frame, isBinary, context);
const PCM = Buffer.from([1, 0, 2, 0, 3, 0]);

describe('parseLiveFrame: accepted events', () => {
  it('parses appends with and without event_id, from a string or a text Buffer', () => {
    const b64 = PCM.toString('base64');
    expect(parse(JSON.stringify({ type: 'session.input_audio.append', audio: b64 }))).toEqual({
      type: 'append',
      audio: PCM,
    });
    expect(
      parse(Buffer.from(JSON.stringify({ type: 'session.input_audio.append', audio: b64, event_id: 'a1' }))),
    ).toEqual({
      type: 'append',
      audio: PCM,
      clientEventId: 'a1',
    });
    expect(parse(JSON.stringify({ audio: b64, type: 'session.input_audio.append' }))).toEqual({
      type: 'append',
      audio: PCM,
    });
  });

  it('takes a binary frame as raw pcm16 (extension)', () => {
    expect(parse(PCM, true)).toEqual({ type: 'append', audio: PCM });
    expect(parse([PCM.subarray(0, 2), PCM.subarray(2)] as unknown as Buffer, true)).toEqual({
      type: 'append',
      audio: PCM,
    });
  });

  it.each([
    ['session.close', 'close'],
    ['session.input_audio.mute', 'mute'],
    ['session.input_audio.unmute', 'unmute'],
  ])('maps %s to %s, echoing event_id only when sent', (type, command) => {
    expect(parse(JSON.stringify({ type }))).toEqual({ type: command });
    expect(parse(JSON.stringify({ type, event_id: 'e1' }))).toEqual({ type: command, clientEventId: 'e1' });
    expect(parse(JSON.stringify({ type, event_id: null }))).toEqual({ type: command });
  });

  it('parses session.start and session.update', () => {
    expect(
      parse(JSON.stringify({ type: 'session.start', event_id: 's1', session: { model: 'vendor-voicechat' } })),
    ).toMatchObject({
      type: 'start',
      clientEventId: 's1',
      config: { type: 'live', model: 'vendor-voicechat', voice: 'aria', outputEncoding: 'base64' },
    });
    expect(parse(JSON.stringify({ type: 'session.update', event_id: 'u1', session: {} }))).toEqual({
      type: 'update',
      clientEventId: 'u1',
    });
  });
});

describe('parseLiveFrame: refusals', () => {
  it('answers bad JSON with invalid_json', () => {
    expect(parse('{"type":')).toEqual({
      type: 'reject',
      code: 'invalid_json',
      message: expect.any(String),
      param: null,
    });
    expect(parse('not json at all')).toMatchObject({ code: 'invalid_json' });
  });

  it.each(['[1,2]', '"text"', '42', 'null', '{}', '{"type":7}'])('answers %s with invalid_event', (text) => {
    expect(parse(text)).toMatchObject({ type: 'reject', code: 'invalid_event', param: 'type' });
  });

  it('refuses a non-string event_id', () => {
    expect(parse(JSON.stringify({ type: 'session.close', event_id: 5 }))).toMatchObject({
      code: 'invalid_parameter',
      param: 'event_id',
    });
  });

  it('answers unknown types with unknown_event and the client event id', () => {
    expect(parse(JSON.stringify({ type: 'input_audio_buffer.append', event_id: 'x' }))).toEqual({
      type: 'reject',
      code: 'unknown_event',
      message: expect.any(String),
      param: 'type',
      clientEventId: 'x',
    });
  });

  it.each([
    'session.commentary.append',
    'session.thinking.append',
    'session.instructions.append',
    'response.create',
    'response.item.create',
  ])('refuses %s with unsupported_event, param type', (type) => {
    expect(parse(JSON.stringify({ type, event_id: 'r1', content: 'x', delegation_id: null }))).toEqual({
      type: 'reject',
      code: 'unsupported_event',
      message: `${type} is not supported by this service`,
      param: 'type',
      clientEventId: 'r1',
    });
  });

  it.each([
    ['a number', 12],
    ['a missing field', undefined],
    ['a bad length', 'AAA'],
    ['characters outside base64', 'AA!A'],
    ['inner padding', 'QQ==QQ=='],
    ['whitespace', 'AA A'],
  ])('refuses audio that is %s with invalid_audio', (_what, audio) => {
    expect(parse(JSON.stringify({ type: 'session.input_audio.append', audio, event_id: 'a' }))).toMatchObject({
      code: 'invalid_audio',
      param: 'audio',
      clientEventId: 'a',
    });
  });

  it('refuses the fast path forms too', () => {
    expect(parse('{"type":"session.input_audio.append","audio":"AA!A"}')).toMatchObject({ code: 'invalid_audio' });
    expect(parse('{"type":"session.input_audio.append","audio":"AAAA","event_id":"q"}')).toEqual({
      type: 'append',
      audio: Buffer.alloc(3),
      clientEventId: 'q',
    });
  });

  it('refuses oversized frames with message_too_large, text or binary', () => {
    const small: LiveParseContext = { lock: null, maxMessageBytes: 16 };
    expect(parse('{"type":"session.close","event_id":"long one"}', false, small)).toMatchObject({
      code: 'message_too_large',
    });
    expect(parse(Buffer.alloc(18), true, small)).toMatchObject({ code: 'message_too_large' });
  });
});
