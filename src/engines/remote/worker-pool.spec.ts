import { ConfigSection } from '../registry/config-section';
import { parseRemoteSettings } from './remote-settings';
import { WorkerPool } from './worker-pool';

const quiet = { warn: () => undefined, log: () => undefined };

function pool(workers: string[], extra: Record<string, unknown> = {}, now = () => 0): WorkerPool {
  const settings = parseRemoteSettings(
    new ConfigSection('test', 'engines.asr', {
      protocol: 'openai-realtime',
      workers,
      maxStreamsPerWorker: 2,
      healthPath: null,
      backoffMinMs: 100,
      backoffMaxMs: 1000,
      ...extra,
    }),
  );
  return new WorkerPool(settings, quiet, now);
}

describe('WorkerPool', () => {
  it('gives each stream the least-loaded worker and refuses past every worker’s maximum', () => {
    const p = pool(['ws://a:1/v1/realtime', 'ws://b:1/v1/realtime']);
    const taken = [p.acquire(), p.acquire(), p.acquire(), p.acquire()];
    expect(taken.map((w) => w!.url.host).sort()).toEqual(['a:1', 'a:1', 'b:1', 'b:1']);
    expect(p.acquire()).toBeNull();
    expect(p.capacity()).toEqual({ inUse: 4, max: 4 });
    p.release(taken[0]!);
    expect(p.acquire()!.url.host).toBe(taken[0]!.url.host);
  });

  it('lets a minimum backoff above the default maximum stand without a maximum of its own', () => {
    const settings = (extra: Record<string, unknown>) =>
      parseRemoteSettings(
        new ConfigSection('test', 'engines.asr', {
          protocol: 'openai-realtime',
          workers: ['ws://a:1/v1/realtime'],
          ...extra,
        }),
      );
    expect(settings({ backoffMinMs: 60_000 })).toMatchObject({ backoffMinMs: 60_000, backoffMaxMs: 60_000 });
    expect(settings({})).toMatchObject({ backoffMinMs: 500, backoffMaxMs: 30_000 });
    expect(() => settings({ backoffMinMs: 60_000, backoffMaxMs: 1000 })).toThrow(/backoffMaxMs/);
  });

  it('skips excluded workers (those a stream already tried)', () => {
    const p = pool(['ws://a:1/v1/realtime', 'ws://b:1/v1/realtime']);
    const first = p.acquire()!;
    expect(p.acquire(new Set([first]))!.url.host).not.toBe(first.url.host);
  });

  it('takes a failed worker out with an exponential backoff and retries it once that has passed', () => {
    let now = 0;
    const p = pool(['ws://a:1/v1/realtime'], {}, () => now);
    const worker = p.acquire()!;
    p.release(worker);
    p.failed(worker, 'socket closed');
    expect(p.hasCapacity()).toBe(false);
    expect(p.capacity().max).toBe(0);
    now = 100;
    expect(p.acquire()).toBe(worker); // the retry
    p.release(worker);
    p.failed(worker, 'socket closed again');
    now = 250; // second failure: 200 ms
    expect(p.acquire()).toBeNull();
    now = 300;
    expect(p.acquire()).toBe(worker);
    p.succeeded(worker);
    expect(worker.failures).toBe(0);
  });

  it('resolves a host name to every address (a headless Service) and keeps the path and port', async () => {
    const p = pool(['ws://localhost:8080/v1/realtime'], { resolveDns: true });
    await p.start();
    p.stop();
    expect(p.all.length).toBeGreaterThanOrEqual(1);
    for (const worker of p.all) {
      expect(worker.url.hostname).toMatch(/^(127\.0\.0\.1|\[::1\])$/);
      expect(worker.url.port).toBe('8080');
      expect(worker.url.pathname).toBe('/v1/realtime');
      expect(worker.hostname).toBe('localhost');
    }
  });

  it('keeps the known workers when the name does not resolve', async () => {
    const p = pool(['ws://no-such-host.invalid:8080/v1/realtime'], { resolveDns: true });
    await p.start();
    p.stop();
    expect(p.all).toEqual([]);
    expect(p.hasCapacity()).toBe(false);
  });
});
