import { ENGINE_REGISTRY } from '../../engines';
import { MediumModule, mediumModule } from '../../../test/support/medium';
import { ModelCatalog } from './model-catalog';
import { ModelsModule } from './models.module';
import { ModelsService } from './models.service';

/** The models module: the catalog from configuration, the engines' capacity per model (a stand-in). */
describe('models module', () => {
  let m: MediumModule;
  const capacityFor = jest.fn((model: string) =>
    model === 'vendor-voicechat' ? { inUse: 1, max: 4 } : { inUse: 0, max: 2 },
  );

  beforeAll(async () => {
    m = await mediumModule(null, {
      imports: [ModelsModule],
      env: {
        PRICE_VOICECHAT_USD_PER_MINUTE: '0.120000',
        PRICE_ASR_USD_PER_MINUTE: '0.003000',
        MAX_SESSION_SECONDS: '90',
      },
      globals: [{ provide: ENGINE_REGISTRY, useValue: { capacityFor } }],
    });
  });
  afterAll(() => m?.close());

  it('lists each model with its configured price, the session limit and its engine capacity', () => {
    const { data } = m.get(ModelsService).list();
    expect(data.map((d) => [d.id, d.type, d.price.usd_per_minute, d.max_session_seconds, d.capacity])).toEqual([
      ['vendor-voicechat', 'live', '0.120000', 90, { streams_in_use: 1, streams_max: 4 }],
      ['vendor-asr-streaming', 'transcription', '0.003000', 90, { streams_in_use: 0, streams_max: 2 }],
    ]);
    expect(capacityFor).toHaveBeenCalledWith('vendor-asr-streaming');
  });

  it('prices a batch of frames once, rounded to the micro-dollar, and refuses unknown models', () => {
    const catalog = m.get(ModelCatalog);
    // 0.12 USD a minute is 160 micro-USD a frame (750 frames a minute).
    expect(catalog.costMicros('vendor-voicechat', 10)).toBe(1600);
    expect(catalog.costMicros('vendor-asr-streaming', 1)).toBe(4); // 4.0
    expect(catalog.costMicros('vendor-asr-streaming', 3)).toBe(12);
    expect(catalog.defaultFor('transcription').id).toBe('vendor-asr-streaming');
    expect(() => catalog.get('gpt-4o', 'session.model')).toThrow(
      expect.objectContaining({ code: 'invalid_parameter' }),
    );
    expect(() => catalog.checkLanguage('vendor-asr-streaming', 'xx-YY', 'language')).toThrow(/not available/);
    expect(() => catalog.checkLanguage('vendor-asr-streaming', 'auto', 'language')).not.toThrow();
  });
});
