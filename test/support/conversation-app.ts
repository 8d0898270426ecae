/**
 * The service with vendor-voicechat as a cascade whose chat and speech upstreams are fake servers
 * (the public chat-completions and audio/speech formats), served over TLS with a certificate made for
 * the test (the openai SDK's OpenAIRealtimeWS connects with wss only) or, for clients that take no
 * certificate (LiveKit's plugin), over plain HTTP; and the openai SDK's client as a server-side agent
 * uses it. For specs that drive conversation sessions on /v1/realtime.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { startFakeChatServer, type ChatPlan } from '../../src/engines/cascade/testing/fake-chat-server';
import { startFakeSpeechServer } from '../../src/engines/cascade/testing/fake-speech-server';
import type { RecordedRequest, RecordingServer } from '../../src/engines/cascade/testing/recording-server';
import { databaseTargets } from './test-database';
import { startTestApp, type TestApp } from './test-app';
import { fetchTrusting, pemPair } from './tls-and-words';
import { waitFor } from './wait-for';

export type ConversationEvent = { type: string; [key: string]: any };

export interface ConversationApp {
  t: TestApp;
  apiKey: string;
  ca: Buffer;
  chat: RecordingServer;
  speech: RecordingServer;
  /** What the fake chat server answers each request with. */
  chatPlan: (request: RecordedRequest) => ChatPlan;
  /** Milliseconds of voice per character of text (the fake speech server's tone). */
  msPerChar: number;
  close(): Promise<void>;
}

export async function startConversationApp(
  env: Record<string, string> = {},
  { tls = true }: { tls?: boolean } = {},
): Promise<ConversationApp> {
  const app = { msPerChar: 10, chatPlan: () => ({ kind: 'reply', pieces: ['Hello.'] }) } as unknown as ConversationApp;
  app.chat = await startFakeChatServer((request) => app.chatPlan(request));
  app.speech = await startFakeSpeechServer(() => ({ msPerChar: app.msPerChar, chunkMs: 100, chunkEveryMs: 5 }));
  const engines = {
    engines: {
      listen: { kind: 'embedded', maxStreams: 3 },
      voicechat: {
        kind: 'cascade',
        listener: 'listen',
        languages: ['en'],
        chat: {
          url: app.chat.baseUrl,
          model: 'llama-3.2-3b-instruct',
          systemPrompt: 'You are Aria.',
          maxTokens: 80,
          temperature: 0.3,
          timeoutMs: 5000,
        },
        speech: { url: app.speech.baseUrl, model: 'kokoro', voice: 'af_heart', timeoutMs: 5000 },
      },
    },
    models: { 'vendor-asr-streaming': 'listen', 'vendor-voicechat': 'voicechat' },
  };
  const dir = mkdtempSync(join(tmpdir(), 'continuum-conv-'));
  const { cert, key } = pemPair(dir);
  app.ca = readFileSync(cert);
  const served: Record<string, string> = tls ? { TLS_CERT_FILE: cert, TLS_KEY_FILE: key } : {};
  app.t = await startTestApp(databaseTargets()[0], {
    env: { ENGINES_JSON: JSON.stringify(engines), ...served, ...env },
  });
  ({ apiKey: app.apiKey } = await app.t.newProject());
  app.close = async () => {
    await app.t?.close();
    await app.chat?.close();
    await app.speech?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return app;
}

/** OpenAIRealtimeWS as a server-side agent uses it: every event recorded, errors collected. */
export async function openaiRealtimeClient(app: ConversationApp, model = 'gpt-realtime', key = app.apiKey) {
  const client = new OpenAI({ apiKey: key, baseURL: `${app.t.baseUrl}/v1`, fetch: fetchTrusting(app.ca) });
  const rt = new OpenAIRealtimeWS({ model, options: { ca: app.ca } }, client);
  const events: ConversationEvent[] = [];
  const errors: Record<string, any>[] = [];
  rt.on('event', (event) => events.push(event as ConversationEvent));
  rt.on('error', (error) =>
    errors.push((error as { error?: Record<string, any> }).error ?? { message: String(error) }),
  );
  await new Promise<void>((resolve, reject) => rt.socket.once('open', resolve).once('error', reject));
  const next = async (type: string, from = 0, timeoutMs = 15_000): Promise<ConversationEvent> => {
    let found: ConversationEvent | undefined;
    await waitFor(async () => (found = events.slice(from).find((e) => e.type === type)) !== undefined, timeoutMs);
    return found!;
  };
  return { rt, events, errors, next };
}

/** A call port of its own for each app a test starts (WEBRTC_UDP_PORT), so that parallel files never share one. */
export const randomCallPort = (): string => String(40000 + Math.floor(Math.random() * 20000));
