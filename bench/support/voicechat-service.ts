/**
 * The service as its own process (dist/src/main.js) with `vendor-voicechat` served by the cascade, its
 * chat and speech upstreams fake servers in this process that answer at once ("Hi.", 60 ms of voice a
 * character), and the scripted engine as the listener (it hears loudness, so recognition costs nothing
 * and a bench's figures are the transport's and the session layer's). WebRTC calls on a random UDP port.
 */
import { randomInt } from 'node:crypto';
import { startFakeChatServer } from '../../src/engines/cascade/testing/fake-chat-server';
import { startFakeSpeechServer } from '../../src/engines/cascade/testing/fake-speech-server';
import { createScratchDatabase } from './scratch-database';
import { ServiceProcess } from './service-process';

export const BENCH_KEY = `wk_${'b'.repeat(40)}`;

export interface VoicechatService {
  readonly service: ServiceProcess;
  close(): Promise<void>;
}

export async function startVoicechatService(name: string): Promise<VoicechatService> {
  const chat = await startFakeChatServer(() => ({ kind: 'reply', pieces: ['Hi.'] }));
  const speech = await startFakeSpeechServer(() => ({ msPerChar: 60, chunkMs: 100, chunkEveryMs: 1 }));
  const database = await createScratchDatabase(name);
  const engines = {
    engines: {
      listen: { kind: 'scripted', maxStreams: 128 },
      voicechat: {
        kind: 'cascade',
        listener: 'listen',
        languages: ['en'],
        chat: { url: chat.baseUrl, model: 'bench', timeoutMs: 5000 },
        speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart', timeoutMs: 5000 },
      },
    },
    models: { 'vendor-asr-streaming': 'listen', 'vendor-voicechat': 'voicechat' },
  };
  const service = await ServiceProcess.start(name, {
    DATABASE_URL: database.url,
    ENGINES_JSON: JSON.stringify(engines),
    STARTING_API_KEY: BENCH_KEY,
    ENGINE_MAX_STREAMS: '128',
    PROJECT_STREAMS_PER_INSTANCE: '128',
    CONCURRENT_SESSIONS_LIMIT: '200',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
    MAX_SESSION_SECONDS: '3600',
    WEBRTC_UDP_PORT: String(40000 + randomInt(20000)),
    LOG_LEVEL: process.env.BENCH_DEBUG ? 'debug' : 'warn',
  });
  return {
    service,
    async close() {
      if (process.env.BENCH_DEBUG) process.stdout.write(service.output.join('').slice(-4000));
      await service.stop();
      await chat.close();
      await speech.close();
      await database.drop();
    },
  };
}
