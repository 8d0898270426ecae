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
    expect(events.recordBatch).toHaveBeenCalledWith('mev_sess_1_7', 'sess_1', 7, 62, {
      'vendor-voicechat': 4960,
      'vendor-asr-streaming': 496,
    });
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
