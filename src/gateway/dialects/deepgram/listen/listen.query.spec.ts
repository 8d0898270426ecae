import { AppError } from '../../../../platform/errors/app-error';
import { IGNORED_LISTEN_PARAMETERS, listenConfig, parseListenQuery, type ListenOptions } from './listen.query';
import { DEFAULT_VAD } from '../../../../session-core/model/defaults';

const PCM = 'encoding=linear16&sample_rate=24000';
const parse = (query: string) => parseListenQuery(`/v1/listen?${query}`);

function refusal(query: string): AppError {
  try {
    parse(query);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`accepted ${query}`);
}

describe('parseListenQuery', () => {
  it('reads what the v5 SDK sends', () => {
    const query =
      'model=nova-3&language=en-US&encoding=linear16&sample_rate=16000&channels=1&interim_results=true&punctuate=true' +
      '&smart_format=true&endpointing=300&utterance_end_ms=1000&vad_events=true&keyterm=Deepgram&keyterm=customer%20service&tag=t';
    expect(parse(query)).toEqual<ListenOptions>({
      encoding: 'linear16',
      sampleRate: 16000,
      language: 'en-US',
      interimResults: true,
      punctuate: true,
      endpointing: 300,
      utteranceEndMs: 1000,
      vadEvents: true,
    });
  });

  it('defaults to final results only, no punctuation, and the session language', () => {
    expect(parse(PCM)).toEqual<ListenOptions>({
      encoding: 'linear16',
      sampleRate: 24000,
      language: null,
      interimResults: false,
      punctuate: false,
      endpointing: null,
      utteranceEndMs: null,
      vadEvents: false,
    });
  });

  it.each(['mulaw', 'alaw'] as const)('takes %s at 8 kHz, as phone audio comes', (encoding) => {
    expect(parse(`encoding=${encoding}&sample_rate=8000`)).toMatchObject({ encoding, sampleRate: 8000 });
  });

  it('reads smart_format as punctuation, multi as auto and endpointing=false as no endpointing', () => {
    expect(parse(`${PCM}&smart_format=true&language=multi&endpointing=false`)).toMatchObject({
      punctuate: true,
      language: 'auto',
      endpointing: false,
    });
  });

  it.each(['vendor-asr-streaming', 'nova-3', 'nova-2-phonecall', 'enhanced-general', 'base'])('maps model %s', (m) => {
    expect(() => parse(`${PCM}&model=${m}`)).not.toThrow();
  });

  it('accepts the parameters it does not act on', () => {
    const ignored = IGNORED_LISTEN_PARAMETERS.map((name) => `${name}=x`).join('&');
    expect(parse(`${PCM}&${ignored}`).sampleRate).toBe(24000);
  });

  it.each([
    ['', 'encoding'],
    ['encoding=opus&sample_rate=48000', 'encoding'],
    ['encoding=mulaw&sample_rate=16000', 'sample_rate'],
    ['encoding=alaw', 'sample_rate'],
    ['encoding=linear16', 'sample_rate'],
    ['encoding=linear16&sample_rate=96000', 'sample_rate'],
    ['encoding=linear16&sample_rate=16k', 'sample_rate'],
    [`${PCM}&channels=2`, 'channels'],
    [`${PCM}&model=whisper`, 'model'],
    [`${PCM}&language=en_US`, 'language'],
    [`${PCM}&vad_events=1`, 'vad_events'],
    [`${PCM}&punctuate=TRUE`, 'punctuate'],
    [`${PCM}&endpointing=5`, 'endpointing'],
    [`${PCM}&utterance_end_ms=abc`, 'utterance_end_ms'],
  ])('refuses "%s" naming %s', (query, param) => {
    expect(refusal(query)).toMatchObject({ code: 'invalid_parameter', param, status: 400 });
  });
});

describe('listenConfig', () => {
  const options = parse(PCM);
  const secret = {
    type: 'transcription' as const,
    model: 'vendor-asr-streaming',
    voice: null,
    language: 'fr',
    turnDetection: null,
    outputEncoding: 'base64' as const,
  };

  it('runs the defaults for an API key and the secret configuration for a secret', () => {
    expect(listenConfig(options, null)).toMatchObject({ language: 'auto', turnDetection: DEFAULT_VAD });
    expect(listenConfig(options, secret)).toEqual(secret);
  });

  it('lets the client choose language and endpointing over the secret', () => {
    expect(listenConfig({ ...options, language: 'en', endpointing: 250 }, secret)).toMatchObject({
      language: 'en',
      turnDetection: { ...DEFAULT_VAD, silenceDurationMs: 250 },
    });
    expect(listenConfig({ ...options, endpointing: false }, null).turnDetection).toBeNull();
  });
});
