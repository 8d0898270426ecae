import { AppConfig } from '../../config/app-config';
import { ModelCatalog } from '../models/model-catalog';
import type { MeterEventsRepository } from './meter-events.repository';
import { MeterService } from './meter.service';

describe('MeterService', () => {
  const catalog = new ModelCatalog(new AppConfig({}));
  const events = { recordBatch: jest.fn() };
  const sut = new MeterService(events as unknown as MeterEventsRepository, catalog);

  beforeEach(() => jest.resetAllMocks());

  it('charges a batch at the session model’s price, under the id of (session, seq)', async () => {
    events.recordBatch.mockResolvedValue('recorded');
    await sut.recordBatch('sess_1', 7, 62);
    // 0.006 USD/min = 6000 micro-USD for 750 frames: 62 frames cost 496; 0.06 USD/min: 4960.
    expect(events.recordBatch).toHaveBeenCalledWith({
      id: 'mev_sess_1_7',
      sessionId: 'sess_1',
      seq: 7,
      frames: 62,
      inputTokens: 0,
      outputTokens: 0,
      costByModel: { 'vendor-voicechat': 4960, 'vendor-asr-streaming': 496 },
    });
  });

  it('charges text tokens at the model’s price per million, with the frames, rounded once', async () => {
    events.recordBatch.mockResolvedValue('recorded');
    await sut.recordBatch('sess_1', 8, 62, { input: 1_234, output: 567 });
    // 1 USD per million input tokens and 4 per million output: 1234 + 2268 micro-USD, plus 4960 of frames.
    expect(events.recordBatch).toHaveBeenCalledWith(
      expect.objectContaining({
        inputTokens: 1_234,
        outputTokens: 567,
        costByModel: { 'vendor-voicechat': 8462, 'vendor-asr-streaming': 496 },
      }),
    );
  });

  it('refuses tokens that are not counts', async () => {
    await expect(sut.recordBatch('sess_1', 1, 0, { input: -1, output: 0 })).rejects.toThrow(RangeError);
    await expect(sut.recordBatch('sess_1', 1, 0, { input: 1.5, output: 0 })).rejects.toThrow(RangeError);
  });

  it.each([
    [0, 1],
    [1.5, 1],
    [1, -1],
    [1, 0.5],
    [Number.NaN, 1],
  ])('refuses seq=%p frames=%p before touching the database', async (seq, frames) => {
    await expect(sut.recordBatch('sess_1', seq, frames)).rejects.toThrow(RangeError);
    expect(events.recordBatch).not.toHaveBeenCalled();
  });

  it('refuses a session that does not exist', async () => {
    events.recordBatch.mockResolvedValue('unknown_session');
    await expect(sut.recordBatch('sess_x', 1, 1)).rejects.toThrow(/unknown session sess_x/);
  });
});
