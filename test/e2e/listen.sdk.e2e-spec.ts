/** The official `@deepgram/sdk` (v5) live client, pointed at the service with its baseUrl option. */
import { DeepgramClient } from '@deepgram/sdk';
import { silence, sleep, tone } from '../support/audio';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

type Message = { type: string; [key: string]: any };

describe.each(databaseTargets())('listen socket with the official Deepgram SDK on %s', (target) => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp(target);
    ({ apiKey } = await t.newProject());
  });
  afterAll(() => t?.close());

  async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await sleep(50);
    }
  }

  it('streams speech and gets interim and final Results, UtteranceEnd, Finalize, CloseStream and Metadata', async () => {
    const deepgram = new DeepgramClient({ apiKey, baseUrl: t.baseUrl.replace('http', 'ws') });
    const connection = await deepgram.listen.v1.connect({
      model: 'nova-3',
      language: 'en-US',
      encoding: 'linear16',
      sample_rate: 16000,
      channels: 1,
      interim_results: 'true',
      punctuate: 'true',
      smart_format: 'true',
      endpointing: 300,
      utterance_end_ms: 1000,
      vad_events: 'true',
      keyterm: ['Deepgram', 'customer service'],
      tag: 'compat-test',
      reconnectAttempts: 0,
    });
    const messages: Message[] = [];
    const errors: unknown[] = [];
    const closes: number[] = [];
    connection.on('message', (message) => messages.push(message as Message));
    connection.on('error', (error) => errors.push(error));
    connection.on('close', (event) => closes.push(event.code));
    connection.connect();
    await connection.waitForOpen();

    // 16 kHz from the client, resampled to the session's 24 kHz: 1.2 s of speech, 2 s of silence.
    const speech = resample24to16(Buffer.concat([tone(1200), silence(2000)]));
    for (let at = 0; at < speech.length; at += 3200) {
      connection.sendMedia(speech.subarray(at, at + 3200));
      if (at % 16000 === 0) await sleep(20);
    }
    await until(() => messages.some((m) => m.type === 'UtteranceEnd'));
    connection.sendKeepAlive({ type: 'KeepAlive' });
    connection.sendMedia(resample24to16(tone(800)));
    connection.sendFinalize({ type: 'Finalize' });
    await until(() => messages.some((m) => m.type === 'Results' && m.from_finalize === true));
    connection.sendCloseStream({ type: 'CloseStream' });
    await until(() => closes.length > 0);
    expect(errors).toEqual([]);
    expect(closes[0]).toBe(1000);

    const results = messages.filter((m) => m.type === 'Results');
    const interim = results.filter((m) => m.is_final === false);
    expect(interim.length).toBeGreaterThanOrEqual(3);
    const finals = results.filter((m) => m.is_final === true);
    expect(finals.map((m) => [m.channel.alternatives[0].transcript, m.speech_final, m.from_finalize])).toEqual([
      ['One two three.', true, false],
      ['One two.', false, true],
    ]);
    expect(finals[0].channel_index).toEqual([0, 1]);
    expect(finals[0].channel.alternatives[0].words).toHaveLength(3);
    expect(messages.find((m) => m.type === 'SpeechStarted')).toMatchObject({ channel: [0, 1], timestamp: 0 });
    expect(messages.find((m) => m.type === 'UtteranceEnd')).toMatchObject({ channel: [0, 1], last_word_end: 1.2 });
    const metadata = messages.at(-1)!;
    expect(metadata).toMatchObject({
      type: 'Metadata',
      transaction_key: 'deprecated',
      duration: 4,
      channels: 1,
      request_id: finals[0].metadata.request_id,
    });

    const rest = await t.app.inject({
      method: 'GET',
      url: `/v1/sessions/${metadata.request_id}`,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(rest.json()).toMatchObject({
      type: 'transcription',
      model: 'vendor-asr-streaming',
      status: 'closed',
      close_reason: 'close_requested',
      usage: { frames: 50, seconds: 4 },
    });
  }, 60_000);

  it('opens with a client secret through the SDK (Token header) and is refused once it is spent', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/realtime/client_secrets',
      payload: {},
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const secret = created.json() as { value: string };
    const deepgram = new DeepgramClient({ apiKey: secret.value, baseUrl: t.baseUrl.replace('http', 'ws') });
    const args = { model: 'nova-3', encoding: 'linear16', sample_rate: 24000, reconnectAttempts: 0 } as const;
    const first = await deepgram.listen.v1.connect(args);
    first.connect();
    await first.waitForOpen();
    const second = await deepgram.listen.v1.connect(args);
    const refused: unknown[] = [];
    second.on('error', (error) => refused.push(error));
    second.connect();
    await expect(second.waitForOpen()).rejects.toBeDefined();
    expect(String(refused[0])).toContain('409');
    first.sendCloseStream({ type: 'CloseStream' });
    await sleep(200);
  }, 60_000);
});

/** 24 kHz → 16 kHz by taking two of every three samples' worth (linear interpolation is plenty for a tone). */
function resample24to16(pcm: Buffer): Buffer {
  const inSamples = pcm.length / 2;
  const outSamples = Math.floor((inSamples * 2) / 3);
  const out = Buffer.alloc(outSamples * 2);
  for (let i = 0; i < outSamples; i++) {
    const position = i * 1.5;
    const base = Math.floor(position);
    const next = Math.min(inSamples - 1, base + 1);
    const fraction = position - base;
    const value = pcm.readInt16LE(base * 2) * (1 - fraction) + pcm.readInt16LE(next * 2) * fraction;
    out.writeInt16LE(Math.round(value), i * 2);
  }
  return out;
}
