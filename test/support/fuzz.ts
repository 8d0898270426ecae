/**
 * Arbitraries for fuzzing the API with fast-check: text and numbers of the kinds that broke it before
 * (NUL, lone surrogates, huge or exotic numbers, reserved keys, credentials in odd places), JSON made
 * of them, and helpers to put them in URLs and headers. FUZZ_SEED replays a failing run.
 */
import fc from 'fast-check';

export const fuzzParameters = (numRuns: number): fc.Parameters<unknown> => ({
  numRuns,
  seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined,
  // fast-check prints the seed and the shrunk counterexample; this says how to replay it.
  reporter: (details) => {
    if (details.failed) {
      throw new Error(`${fc.defaultReportMessage(details)}\nReplay with FUZZ_SEED=${details.seed}`);
    }
  },
});

const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

export const trickyString: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: anyUnit, maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    'x\ud83d',
    '1e20',
    '-1',
    '99999999999999999',
    'NaN',
    'Infinity',
    '0x10',
    '1.5',
    'null',
    'true',
    '__proto__',
    'constructor',
    'toString',
    'sess_%00',
    '%00',
    '%ED%A0%80',
    'wk_fuzzfuzzfuzz',
    'ek_fuzzfuzzfuzz',
    'vendor-voicechat',
    'vendor-asr-streaming',
    'transcription',
    'live',
    'auto',
    'aria',
    'server_vad',
    'audio/pcm',
    'x'.repeat(5000),
  ),
);

export const trickyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 1, -1, 1e20, -1e20, 2 ** 53 + 2, 1e-300, 24000, 600, 60, 0.5),
);

/** JSON values built from the above, at most a few levels deep. */
export const trickyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    trickyString,
    trickyNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(trickyString, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A body shaped like a client-secret request, so that fuzzing reaches past the first field. */
export const secretRequestBody: fc.Arbitrary<unknown> = fc.record(
  {
    expires_after: fc.oneof(fc.record({ seconds: fc.oneof(trickyNumber, trickyJson), anchor: trickyJson }), trickyJson),
    metadata: fc.oneof(fc.dictionary(trickyString, trickyString, { maxKeys: 20 }), trickyJson),
    session: fc.oneof(
      fc.record(
        {
          type: fc.oneof(fc.constantFrom('live', 'transcription'), trickyString),
          model: fc.oneof(fc.constantFrom('vendor-voicechat', 'vendor-asr-streaming'), trickyString),
          audio: fc.oneof(
            fc.record(
              {
                input: fc.oneof(
                  fc.record(
                    {
                      format: trickyJson,
                      transcription: fc.dictionary(
                        fc.constantFrom('language', 'model', 'prompt'),
                        fc.oneof(trickyString, trickyJson),
                      ),
                      turn_detection: trickyJson,
                      noise_reduction: trickyJson,
                    },
                    { requiredKeys: [] },
                  ),
                  trickyJson,
                ),
                output: fc.oneof(
                  fc.record({ voice: trickyString, encoding: trickyString }, { requiredKeys: [] }),
                  trickyJson,
                ),
              },
              { requiredKeys: [] },
            ),
            trickyJson,
          ),
          include: trickyJson,
        },
        { requiredKeys: [] },
      ),
      trickyJson,
    ),
    extra: trickyJson,
  },
  { requiredKeys: [] },
);

const WELL_FORMED = /^(?:[^\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/;

/** Percent-encodes what can be; a lone surrogate goes as raw escapes of its own (also worth sending). */
export function urlPart(text: string): string {
  return WELL_FORMED.test(text)
    ? encodeURIComponent(text)
    : [...text]
        .map((c) => (/[\uD800-\uDFFF]/.test(c) ? `%${c.charCodeAt(0).toString(16)}` : encodeURIComponent(c)))
        .join('');
}

export const queryString: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom('from', 'to', 'limit', 'cursor', 'status', 'group_by', 'token', 'intent', 'model'),
        trickyString,
      ),
      fc.oneof(trickyString, trickyNumber.map(String)),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${urlPart(k)}=${urlPart(v)}`).join('&')}` : ''));

/** Header values HTTP can carry (visible ASCII and Latin-1, spaces inside). */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1 }),
  fc.string({ unit: fc.integer({ min: 0xa0, max: 0xff }).map((c) => String.fromCharCode(c)), minLength: 1 }),
  fc.constantFrom('Bearer', 'Bearer wk_', 'Basic abc', 'Token ek_x', 'bearer  wk_a b', 'application/json'),
);
