/**
 * Two Continuum worker processes behind a gateway: the worker holding a session is killed
 * (SIGKILL) mid-utterance; the session moves to the other worker, which hears the whole utterance
 * again, and the gateway bills each frame once.
 */
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { ENGINE_REGISTRY, EngineRegistry } from '../../src/engines';
import { RemoteSpeechEngine } from '../../src/engines/remote/remote-speech.engine';
import { chunks, sleep } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { wordsHeard } from '../support/tls-and-words';
import { startWorkerProcess, WorkerProcess } from '../support/worker-processes';

const REFERENCE = 'the weather will be sunny and warm today';

describe('gateway failover between Continuum worker processes', () => {
  const target = databaseTargets()[0];
  let workers: WorkerProcess[] = [];
  let gateway: TestApp;
  let speech: Buffer;

  beforeAll(async () => {
    // A worker tier shares one database, so the gateway's one key works on every worker.
    const first = await startWorkerProcess(target);
    workers = [first, await startWorkerProcess(target, first)];
    const engines = JSON.stringify({
      engines: {
        workers: {
          kind: 'remote',
          protocol: 'openai-realtime',
          workers: workers.map((w) => w.realtimeUrl),
          apiKey: { env: 'WORKER_API_KEY' },
          backoffMinMs: 5000,
        },
        local: { kind: 'scripted' },
      },
      models: { 'vendor-asr-streaming': 'workers', 'vendor-voicechat': 'local' },
    });
    gateway = await startTestApp(target, { env: { ENGINES_JSON: engines, WORKER_API_KEY: first.apiKey } });
    const [spoken] = await fliteUtterances('awb', [REFERENCE]);
    const joined = concatAudio([silence(400), toSessionAudio(spoken.clip), silence(800)]);
    const padded = new Int16Array(Math.ceil(joined.length / 1920) * 1920);
    padded.set(joined);
    speech = Buffer.from(padded.buffer);
  }, 180_000);

  afterAll(async () => {
    await gateway?.close();
    for (const worker of [...workers].reverse()) await worker.stop();
  });

  it('survives the worker dying mid-utterance and bills the audio once', async () => {
    const { apiKey: clientKey } = await gateway.newProject();
    const c = await SocketClient.open(`${gateway.baseUrl.replace('http', 'ws')}/v1/realtime?intent=transcription`, {
      headers: { authorization: `Bearer ${clientKey}` },
    });
    c.send({ type: 'session.update', session: { type: 'transcription', audio: { input: { turn_detection: null } } } });
    await c.waitFor('session.updated');
    const sessionId = c.events[0].session.id;
    // The bare engine (engineFor gives the metered wrapper sessions use), to see its pool.
    const engine = gateway.app.get<EngineRegistry>(ENGINE_REGISTRY).engine('workers') as RemoteSpeechEngine;
    const frames = chunks(speech, 80);
    const half = Math.floor(frames.length / 2);
    for (const [i, frame] of frames.entries()) {
      if (i === half) {
        const holder = engine.pool.all.find((w) => w.inUse > 0)!;
        workers.find((w) => w.realtimeUrl === holder.url.href.replace(/\?.*$/, ''))!.kill();
      }
      c.send({ type: 'input_audio_buffer.append', audio: frame.toString('base64') });
      await sleep(40);
    }
    c.send({ type: 'input_audio_buffer.commit' });
    const done = await c.waitFor('conversation.item.input_audio_transcription.completed', 60_000);
    expect(wordsHeard(done.transcript, REFERENCE)).toBeGreaterThanOrEqual(0.5);
    expect(c.ofType('error')).toEqual([]);
    // The stream really moved: the killed worker is out of rotation and the gateway said why.
    expect(engine.pool.all.filter((w) => !w.healthy)).toHaveLength(1);
    expect(gateway.logs.join('')).toMatch(/stream sess_\w+: worker 127\.0\.0\.1:\d+ failed/);
    c.ws.close(1000);
    for (let i = 0; i < 100; i++) {
      const res = await gateway.app.inject({
        method: 'GET',
        url: `/v1/sessions/${sessionId}`,
        headers: { authorization: `Bearer ${clientKey}` },
      });
      if (res.json().status === 'closed') {
        expect(res.json()).toMatchObject({ close_reason: 'close_requested', usage: { frames: frames.length } });
        return;
      }
      await sleep(50);
    }
    throw new Error('the session did not close');
  }, 120_000);
});
