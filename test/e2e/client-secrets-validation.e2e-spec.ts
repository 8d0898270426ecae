/** Property-based tests of the client-secret request validation, against the running service. */
import fc from 'fast-check';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { createSecret, LIVE, REALTIME } from './client-secrets-fixtures';

const RUNS = 150;

/** Mostly well-typed values, sometimes any JSON at all, so that every layer of the body is reached. */
const json = fc.jsonValue({ maxDepth: 2 });
/** Keys named like built-in object members trip class-transformer (dropped keys, or a crash). */
const builtInKeys = fc.constantFrom('constructor', 'toString', 'valueOf', 'hasOwnProperty');
const junk = fc.oneof(json, fc.dictionary(builtInKeys, json, { minKeys: 1, maxKeys: 2 }));
const mostly = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 9, arbitrary: arb }, { weight: 1, arbitrary: junk });
const some = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) =>
  mostly(fc.record(fields, { requiredKeys: [] }));

const randomBody = some({
  expires_after: some({ anchor: fc.constant('created_at'), seconds: fc.integer({ min: -5, max: 700 }) }),
  metadata: mostly(fc.dictionary(fc.string({ maxLength: 70 }), fc.string({ maxLength: 600 }), { maxKeys: 20 })),
  session: some({
    type: fc.constantFrom('live', 'transcription', 'realtime'),
    model: fc.constantFrom('vendor-voicechat', 'vendor-asr-streaming', 'whisper-1'),
    include: fc.array(fc.constantFrom('item.input_audio_transcription.logprobs', 'x'), { maxLength: 3 }),
    audio: some({
      input: some({
        format: some({ type: fc.constantFrom('audio/pcm', 'audio/pcmu'), rate: fc.constantFrom(24000, 16000, null) }),
        noise_reduction: fc.oneof(
          fc.constant(null),
          some({ type: fc.constantFrom('near_field', 'far_field'), strength: fc.double() }),
        ),
        transcription: some({
          language: fc.constantFrom('auto', 'en', 'en-US', '??'),
          model: fc.string(),
          prompt: fc.string(),
        }),
        turn_detection: fc.oneof(
          fc.constant(null),
          some({
            type: fc.constantFrom('server_vad', 'semantic_vad'),
            threshold: fc.double(),
            silence_duration_ms: fc.integer(),
            prefix_padding_ms: fc.integer(),
          }),
        ),
      }),
      output: some({ voice: fc.constantFrom('aria', 'alloy'), encoding: fc.constantFrom('base64', 'binary', 'mp3') }),
    }),
  }),
});

/** Only valid values (on the live path), to which an unknown property is then added. */
const opt = { requiredKeys: [] as never[] };
const validBody = fc.record(
  {
    expires_after: fc.record({ anchor: fc.constant('created_at'), seconds: fc.integer({ min: 1, max: 600 }) }, opt),
    metadata: fc.dictionary(
      fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !(k in Object.prototype)),
      fc.string({ maxLength: 10 }),
      { maxKeys: 3 },
    ),
    session: fc.record(
      {
        type: fc.constant('live'),
        audio: fc.record(
          {
            input: fc.record(
              {
                format: fc.record({ type: fc.constant('audio/pcm'), rate: fc.constantFrom(24000, null) }, opt),
                noise_reduction: fc.oneof(fc.constant(null), fc.record({ type: fc.constant('near_field') }, opt)),
                transcription: fc.record({ language: fc.constantFrom('auto', 'en') }, opt),
                turn_detection: fc.oneof(
                  fc.constant(null),
                  fc.record({ threshold: fc.double({ min: 0, max: 1, noNaN: true }) }, opt),
                ),
              },
              opt,
            ),
            output: fc.record({ voice: fc.constant('aria'), encoding: fc.constantFrom('base64', 'binary') }, opt),
          },
          opt,
        ),
      },
      opt,
    ),
  },
  opt,
);

/** Every object level of the body and the properties it knows. */
const LEVELS: [string[], string[]][] = [
  [[], ['expires_after', 'metadata', 'session']],
  [['expires_after'], ['anchor', 'seconds']],
  [['session'], ['type', 'model', 'include', 'audio']],
  [
    ['session', 'audio'],
    ['input', 'output'],
  ],
  [
    ['session', 'audio', 'input'],
    ['format', 'noise_reduction', 'transcription', 'turn_detection'],
  ],
  [
    ['session', 'audio', 'input', 'format'],
    ['type', 'rate'],
  ],
  [
    ['session', 'audio', 'input', 'noise_reduction'],
    ['type', 'strength'],
  ],
  [
    ['session', 'audio', 'input', 'transcription'],
    ['language', 'model', 'prompt'],
  ],
  [
    ['session', 'audio', 'input', 'turn_detection'],
    [
      'type',
      'threshold',
      'prefix_padding_ms',
      'silence_duration_ms',
      'create_response',
      'interrupt_response',
      'idle_timeout_ms',
    ],
  ],
  [
    ['session', 'audio', 'output'],
    ['voice', 'encoding'],
  ],
];

function withUnknownKey(body: Record<string, any>, path: string[], key: string): Record<string, any> {
  const copy = structuredClone(body);
  let node = copy;
  for (const name of path) {
    if (node[name] === undefined || node[name] === null) node[name] = {};
    node = node[name];
  }
  node[key] = 1;
  return copy;
}

describe.each(databaseTargets())('client-secret request validation on %s (property-based)', (target) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp(target, {
      env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000', CONCURRENT_SESSIONS_LIMIT: '100000' },
    });
    ({ apiKey: key } = await t.newProject());
  });
  afterAll(() => t?.close());

  it('never answers 500 to a random body, and always in a documented shape', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(randomBody, junk), fc.boolean(), async (body, realtime) => {
        const res = await createSecret(t, key, body, { path: realtime ? REALTIME : LIVE });
        expect([200, 400, 422]).toContain(res.statusCode);
        const answer = res.json();
        if (res.statusCode === 422) {
          expect(answer.detail.length).toBeGreaterThan(0);
          for (const issue of answer.detail) {
            expect(issue).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
            expect(issue.loc[0]).toBe('body');
          }
        } else if (res.statusCode === 400) {
          expect(answer.error).toMatchObject({ code: 'invalid_parameter', param: expect.stringMatching(/^session\./) });
        } else {
          expect(answer.value).toMatch(/^ek_/);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('always answers 422 extra_forbidden at its own loc for an unknown property at any level', async () => {
    const level = fc.constantFrom(...LEVELS);
    // Names of built-in object members are the ones a transformer can silently drop: mix them in.
    const builtIn = fc.constantFrom(
      'valueOf',
      'toString',
      'constructor',
      'hasOwnProperty',
      'isPrototypeOf',
      'toLocaleString',
    );
    const name = fc.oneof(
      builtIn,
      fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s !== '__proto__'),
    );
    await fc.assert(
      fc.asyncProperty(validBody, level, name, fc.boolean(), async (body, [path, known], unknown, realtime) => {
        fc.pre(!known.includes(unknown));
        const res = await createSecret(t, key, withUnknownKey(body, path, unknown), {
          path: realtime ? REALTIME : LIVE,
        });
        expect(res.statusCode).toBe(422);
        expect(res.json().detail).toContainEqual({
          loc: ['body', ...path, unknown],
          msg: expect.any(String),
          type: 'extra_forbidden',
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('accepts metadata exactly when it is within bounds', async () => {
    const chars = (s: string) => [...s].length;
    const reserved = (k: string) => (({}) as Record<string, unknown>)[k] instanceof Function;
    const metadata = fc.dictionary(
      fc.oneof(
        { weight: 1, arbitrary: fc.constantFrom('toString', 'valueOf', 'constructor') },
        { weight: 20, arbitrary: fc.string({ maxLength: 70, unit: 'grapheme' }).filter((k) => k !== '__proto__') },
      ),
      fc.oneof(
        { weight: 9, arbitrary: fc.string({ maxLength: 600, unit: 'grapheme' }) },
        { weight: 1, arbitrary: fc.integer() },
      ),
      { maxKeys: 20 },
    );
    await fc.assert(
      fc.asyncProperty(metadata, async (map) => {
        const entries = Object.entries(map);
        const valid =
          entries.length <= 16 &&
          entries.every(
            ([k, v]) => !reserved(k) && chars(k) >= 1 && chars(k) <= 64 && typeof v === 'string' && chars(v) <= 512,
          );
        const res = await createSecret(t, key, { metadata: map });
        expect(res.statusCode).toBe(valid ? 200 : 422);
        if (valid) expect(res.json().session.metadata).toEqual(map);
        else expect(res.json().detail[0].loc).toEqual(['body', 'metadata']);
      }),
      { numRuns: RUNS },
    );
  });
});
