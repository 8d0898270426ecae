/**
 * The batch recognition process, for real: a child with its own embedded engine, at the asked OS
 * priority, recognising flite speech; its streams are its own; a child that dies ends its streams
 * with a fatal error and the next stream starts another; an idle child leaves.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { EngineCapacityError, type EngineStreamConfig } from '../../../session-core';
import * as fixtures from '../testing/speech-fixtures';
import { EventLog, feedAudio } from '../testing/stream-driver';
import { corpusWer } from '../testing/wer';
import { BatchProcessEngine } from './batch-process-engine';

const config: EngineStreamConfig = {
  sessionId: 'batch-process-spec',
  type: 'transcription',
  model: 'vendor-asr-streaming',
  language: 'en',
  voice: null,
  turnDetection: { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 },
};

/** Linux priorities are per thread: every thread of the process, as /proc lists them. */
function threadNices(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

const exited = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('BatchProcessEngine', () => {
  const engine = new BatchProcessEngine({ maxStreams: 1, nice: 10, idleExitMs: 1500 });
  let utterance: fixtures.Utterance;

  beforeAll(async () => {
    process.env.DATABASE_URL_FOR_THE_SPEC = 'postgres://u:SECRET_FOR_THE_SPEC@db/x';
    [utterance] = await fixtures.fliteUtterances('rms', [fixtures.FLITE_SENTENCES[1]]);
  }, 60_000);
  afterAll(async () => {
    delete process.env.DATABASE_URL_FOR_THE_SPEC;
    await engine.shutdown();
  });

  it('recognises in a child at the asked priority, on streams of its own, and the idle child leaves', async () => {
    const log = new EventLog();
    const stream = await engine.open(config, log.sink);
    const pid = engine.pid!;
    expect(pid).not.toBe(process.pid);
    expect(getPriority(pid)).toBe(10);
    // The threads that decode (libuv's pool) started after the child lowered itself.
    expect(threadNices(pid).filter((nice) => nice === 10).length).toBeGreaterThanOrEqual(5);
    // The service's secrets stay out of the child's environment.
    expect(readFileSync(`/proc/${pid}/environ`, 'latin1')).not.toContain('SECRET_FOR_THE_SPEC');
    expect(engine.capacity()).toEqual({ inUse: 1, max: 1 });
    await expect(engine.open(config, () => undefined)).rejects.toBeInstanceOf(EngineCapacityError);

    const { pcm } = fixtures.sessionRecording([utterance], 600);
    await feedAudio(stream, pcm);
    await stream.close();
    expect(log.of('error')).toEqual([]);
    const heard = log
      .finals()
      .map((f) => f.transcript ?? '')
      .join(' ');
    expect(corpusWer([{ reference: utterance.reference, hypothesis: heard }]).wer).toBeLessThanOrEqual(0.3);
    expect(engine.capacity()).toEqual({ inUse: 0, max: 1 });
    await until(() => exited(pid));
    expect(engine.pid).toBeNull();
  }, 120_000);

  it('a child that dies ends its streams with a fatal error; the next stream starts another', async () => {
    const log = new EventLog();
    const stream = await engine.open(config, log.sink);
    const pid = engine.pid!;
    process.kill(pid, 'SIGKILL');
    await until(() => log.of('error').length > 0);
    expect(log.of('error')[0]).toMatchObject({ code: 'engine_unavailable', fatal: true });
    await stream.close();
    expect(engine.capacity().inUse).toBe(0);

    const again = await engine.open(config, () => undefined);
    expect(engine.pid).not.toBe(pid);
    await again.close();
  }, 120_000);
});
