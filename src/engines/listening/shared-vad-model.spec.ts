import { SharedVadModel, SileroVadModel } from './silero-vad';

/** The model an engine shares between its streams (written once for the embedded and remote engines). */
describe('SharedVadModel', () => {
  const model = (): SileroVadModel => ({ release: jest.fn(async () => {}) }) as unknown as SileroVadModel;
  afterEach(() => jest.restoreAllMocks());

  it('loads once for every caller, and frees what it loaded', async () => {
    const loaded = model();
    const load = jest.spyOn(SileroVadModel, 'load').mockResolvedValue(loaded);
    const shared = new SharedVadModel();
    expect(await Promise.all([shared.load(), shared.load()])).toEqual([loaded, loaded]);
    expect(load).toHaveBeenCalledTimes(1);
    await shared.release();
    expect(loaded.release).toHaveBeenCalledTimes(1);
    await shared.load();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('retries a failed load at the next call instead of failing every later stream', async () => {
    const loaded = model();
    jest.spyOn(SileroVadModel, 'load').mockRejectedValueOnce(new Error('no onnx')).mockResolvedValueOnce(loaded);
    const shared = new SharedVadModel();
    await expect(shared.load()).rejects.toThrow('no onnx');
    expect(await shared.load()).toBe(loaded);
  });

  it('releases nothing when nothing loaded, or when the load failed', async () => {
    jest.spyOn(SileroVadModel, 'load').mockRejectedValue(new Error('no onnx'));
    const shared = new SharedVadModel();
    await expect(shared.release()).resolves.toBeUndefined();
    await shared.load().catch(() => {});
    await expect(shared.release()).resolves.toBeUndefined();
  });
});
