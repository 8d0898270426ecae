import { plainToInstance, Type } from 'class-transformer';
import {
  IsInt,
  registerDecorator,
  validateSync,
  ValidateNested,
  ValidationArguments,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  Validate,
} from 'class-validator';
import { ClientSecretRequestDto } from '../../modules/client-secrets/dto/client-secret-request.dto';
import { isCertainlyValid } from './compiled-validity';

const OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false };

const toInstance = (type: new () => object, body: unknown) =>
  plainToInstance(type, body, { enableImplicitConversion: false, exposeDefaultValues: true }) as object;

const FULL_BODY = {
  expires_after: { anchor: 'created_at', seconds: 600 },
  metadata: { bench: 'rest', ключ: 'значение' },
  session: {
    type: 'live',
    model: 'vendor-voicechat',
    include: ['item.input_audio_transcription.logprobs'],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 24000 },
        noise_reduction: { type: 'near_field', strength: 0.5 },
        transcription: { language: 'en-US', model: 'vendor-asr-streaming', prompt: 'names' },
        turn_detection: {
          type: 'server_vad',
          threshold: 0.5,
          prefix_padding_ms: 300,
          silence_duration_ms: 500,
          end_of_turn: { eot_threshold: 0.7, eager_eot_threshold: null, eot_timeout_ms: 5000 },
          create_response: true,
          interrupt_response: false,
        },
      },
      output: { voice: 'aria', encoding: 'binary' },
    },
  },
};

const ODD_VALUES: unknown[] = [
  undefined,
  null,
  '',
  'x',
  'auto',
  'en-US',
  'transcription',
  'a'.repeat(65),
  'a'.repeat(5000),
  0,
  -1,
  0.3,
  1,
  1.5,
  3,
  99,
  600,
  601,
  24000,
  70000,
  true,
  false,
  [],
  ['item.input_audio_transcription.logprobs'],
  ['x'],
  Array(9).fill('item.input_audio_transcription.logprobs'),
  {},
  { a: 'b' },
  { a: 1 },
  { '': 'x' },
  Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])),
];

/** Every body made by putting each odd value at each place of `body`, or adding a key beside it. */
function variants(body: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  for (const [key, value] of Object.entries(body)) {
    for (const odd of ODD_VALUES) out.push({ ...body, [key]: odd });
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const inner of variants(value as Record<string, unknown>)) out.push({ ...body, [key]: inner });
    }
  }
  out.push({ ...body, unknown_field: 1 });
  return out;
}

describe('isCertainlyValid', () => {
  const corpus = [{}, FULL_BODY, ...variants(FULL_BODY)];

  it('calls valid only what class-validator finds no error in, and every such body of the client-secret request', () => {
    let valid = 0;
    for (const body of corpus) {
      const instance = toInstance(ClientSecretRequestDto, body);
      const errors = validateSync(instance, OPTIONS);
      expect({ body, fast: isCertainlyValid(instance) }).toEqual({ body, fast: errors.length === 0 });
      if (errors.length === 0) valid++;
    }
    // The corpus reaches both verdicts often enough to mean something.
    expect(valid).toBeGreaterThan(100);
    expect(corpus.length - valid).toBeGreaterThan(300);
  });

  it('runs constraints with the arguments class-validator gives them', () => {
    const seen: ValidationArguments[] = [];
    @ValidatorConstraint({ name: 'spy' })
    class Spy implements ValidatorConstraintInterface {
      validate(_value: unknown, args: ValidationArguments) {
        seen.push(args);
        return true;
      }
    }
    class Dto {
      @Validate(Spy, [7])
      n?: number;
    }
    const instance = toInstance(Dto, { n: 1 });
    validateSync(instance, OPTIONS);
    expect(isCertainlyValid(instance)).toBe(true);
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]).toMatchObject({ targetName: 'Dto', property: 'n', value: 1, constraints: [7] });
  });

  it('leaves to class-validator what it does not model: async constraints and nested arrays', () => {
    @ValidatorConstraint({ async: true })
    class Later implements ValidatorConstraintInterface {
      validate() {
        return Promise.resolve(true);
      }
    }
    class AsyncDto {
      @Validate(Later)
      n?: number;
    }
    class Item {
      @IsInt()
      n!: number;
    }
    class ListDto {
      @Type(() => Item)
      @ValidateNested({ each: true })
      items?: Item[];
    }
    expect(isCertainlyValid(toInstance(AsyncDto, { n: 1 }))).toBe(false);
    expect(isCertainlyValid(toInstance(ListDto, { items: [{ n: 1 }] }))).toBe(false);
  });

  it('answers for the rules a class has, inherited ones included', () => {
    class Base {
      @IsInt()
      n!: number;
    }
    class Derived extends Base {}
    function Even(target: object, propertyName: string) {
      registerDecorator({ target: target.constructor, propertyName, validator: { validate: (v) => v % 2 === 0 } });
    }
    class WithCustom {
      @Even
      @IsInt()
      n!: number;
    }
    expect(isCertainlyValid(toInstance(Derived, { n: 1 }))).toBe(true);
    expect(isCertainlyValid(toInstance(Derived, { n: 'one' }))).toBe(false);
    expect(isCertainlyValid(toInstance(Derived, {}))).toBe(false);
    expect(isCertainlyValid(toInstance(Derived, { n: 1, m: 2 }))).toBe(false);
    expect(isCertainlyValid(toInstance(WithCustom, { n: 2 }))).toBe(true);
    expect(isCertainlyValid(toInstance(WithCustom, { n: 3 }))).toBe(false);
  });
});
