import fc from 'fast-check';
import { fuzzParameters, queryString, trickyJson, trickyString } from '../support/fuzz';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Every client event of the three sockets (live, realtime, listen) fuzzed: sequences of events with
 * known and unknown types and hostile fields, raw text and binary frames, and hostile handshake
 * queries. No handshake refusal is a 5xx, no event is an internal or engine error, every close is a
 * documented code, and the socket still answers (or has closed) after the sequence: no hang.
 */
const RUNS = Number(process.env.FUZZ_SOCKET_RUNS ?? 200);
const ANSWER_WITHIN_MS = 5000;

interface Dialect {
  name: 'live' | 'realtime' | 'listen';
  path: string;
  types: string[];
  /** A valid first event, sent in most runs so that the rest reaches a started session. */
  start?: object;
  /** What to send last: something every state answers, or that closes the socket. */
  probe: string;
  /** Close codes the dialect documents for what a client can send. */
  closeCodes: number[];
}

const DIALECTS: Dialect[] = [
  {
    name: 'live',
    path: '/v1/live/sessions',
    types: [
      'session.start',
      'session.update',
      'session.input_audio.append',
      'session.input_audio.mute',
      'session.input_audio.unmute',
      'session.close',
    ],
    start: { type: 'session.start', session: { model: 'vendor-asr-streaming' } },
    probe: JSON.stringify({ type: 'fuzz.probe' }),
    closeCodes: [1000, 1007, 1008, 1009],
  },
  {
    name: 'realtime',
    path: '/v1/realtime?intent=transcription',
    types: [
      'session.update',
      'transcription_session.update',
      'input_audio_buffer.append',
      'input_audio_buffer.commit',
      'input_audio_buffer.clear',
      'output_audio_buffer.clear',
      'conversation.item.create',
      'conversation.item.delete',
      'conversation.item.retrieve',
      'conversation.item.truncate',
      'response.create',
      'response.cancel',
    ],
    probe: JSON.stringify({ type: 'fuzz.probe' }),
    closeCodes: [1000, 1007, 1008, 1009],
  },
  {
    name: 'listen',
    path: '/v1/listen?encoding=linear16&sample_rate=24000',
    types: ['KeepAlive', 'Finalize', 'CloseStream'],
    probe: JSON.stringify({ type: 'CloseStream' }),
    closeCodes: [1000, 1007, 1008, 1009],
  },
];

const FORBIDDEN_ERROR_CODES = new Set(['internal_error', 'engine_error']);

const frame = (dialect: Dialect) =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .record({
          type: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...dialect.types) }, trickyString),
          fields: fc.dictionary(
            fc.constantFrom(
              'session',
              'audio',
              'event_id',
              'item_id',
              'item',
              'content_index',
              'audio_end_ms',
              'response',
              'previous_item_id',
            ),
            fc.oneof(
              trickyJson,
              fc.uint8Array({ maxLength: 4000 }).map((b) => Buffer.from(b).toString('base64')),
            ),
            { maxKeys: 3 },
          ),
        })
        .map(({ type, fields }) => ({ text: JSON.stringify({ ...fields, type }) })),
    },
    fc.oneof(trickyString, fc.string()).map((text) => ({ text })),
    trickyJson.map((value) => ({ text: JSON.stringify(value) ?? 'undefined' })),
    fc.uint8Array({ maxLength: 8000 }).map((bytes) => ({ binary: Buffer.from(bytes) })),
  );

describe.each(databaseTargets())('socket fuzzing on %s', (target) => {
  let t: TestApp;
  let key: string;
  let wsBase: string;

  beforeAll(async () => {
    t = await startTestApp(target, {
      env: {
        RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
        CONCURRENT_SESSIONS_LIMIT: '100000',
        ENGINE_MAX_STREAMS: '1000',
      },
    });
    ({ apiKey: key } = await t.newProject());
    wsBase = t.baseUrl.replace('http', 'ws');
  });
  afterAll(() => t?.close());

  it.each(DIALECTS)(
    `survives ${RUNS} fuzzed $name sockets`,
    async (dialect) => {
      const run = fc.record({
        query: fc.option(queryString, { freq: 5, nil: undefined }),
        start: fc.boolean(),
        frames: fc.array(frame(dialect), { maxLength: 8 }),
      });
      await fc.assert(
        fc.asyncProperty(run, async (r) => {
          const joiner = dialect.path.includes('?') ? '&' : '?';
          const url = `${wsBase}${dialect.path}${r.query ? joiner + r.query.slice(1) : ''}`;
          let socket: SocketClient;
          try {
            socket = await SocketClient.open(url, { headers: { authorization: `Bearer ${key}` } });
          } catch (error) {
            const refusal = (error as { refusal?: { status: number; body: any; headers: any } }).refusal;
            if (!refusal) throw error;
            expect({ url, status: refusal.status < 500 }).toEqual({ url, status: true });
            expect(refusal.body.error.request_id).toBe(refusal.headers['x-request-id']);
            return;
          }
          try {
            if (r.start && dialect.start) socket.send(dialect.start);
            for (const f of r.frames) {
              if ('binary' in f) socket.sendRaw(f.binary!, true);
              else socket.sendRaw(f.text!);
            }
            const seen = socket.events.length;
            socket.sendRaw(dialect.probe);
            const deadline = Date.now() + ANSWER_WITHIN_MS;
            while (socket.closeCode === null && socket.events.length <= seen && Date.now() < deadline) {
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
            const answered = socket.closeCode !== null || socket.events.length > seen;
            expect({ url, answered }).toEqual({ url, answered: true });
            if (socket.closeCode !== null) expect(dialect.closeCodes).toContain(socket.closeCode);
            const errors = socket.events.filter((e) => e.type === 'error' && FORBIDDEN_ERROR_CODES.has(e.error?.code));
            expect(errors).toEqual([]);
          } finally {
            socket.ws.terminate();
          }
        }),
        fuzzParameters(RUNS),
      );
      expect(t.logs.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
    },
    600_000,
  );
});
