/**
 * Every conversation setting through both of its paths, as a new user tries them: given in a realtime
 * client secret (POST /v1/realtime/client_secrets, `type: "realtime"`, then the socket it opens shows
 * `session.created`), and given in the socket's own `session.update`. Each case gets one answer on
 * both: the same settings shown, or a refusal of the same kind at the same `param` (the socket's
 * `unsupported_*` is the REST 400 invalid_parameter; its other codes, a malformed value, the REST 422
 * at that loc). Two engines, as the rules differ by what an engine serves: a cascade that answers
 * when asked and calls tools, and the scripted engine, which answers spoken turns by itself as the
 * embedded voicechat does.
 */
import { startConversationApp, type ConversationApp } from '../support/conversation-app';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, type TestApp } from '../support/test-app';

type Engine = 'cascade' | 'self';
type Answer = { shown: Record<string, unknown> } | { refused: { kind: 'unserved' | 'malformed'; param: string } };

const TOOL = { type: 'function', name: 'get_weather', description: 'The weather', parameters: { type: 'object' } };
const td = (turnDetection: unknown) => ({ audio: { input: { turn_detection: turnDetection } } });
const input = (fields: Record<string, unknown>) => ({ audio: { input: fields } });
const output = (fields: Record<string, unknown>) => ({ audio: { output: fields } });

/** [name, engine, the session's fields (without type)]: 53 cases. */
const CASES: [string, Engine, Record<string, unknown>][] = [
  ['server_vad, defaults', 'cascade', td({ type: 'server_vad' })],
  ['server_vad threshold 0.8', 'cascade', td({ type: 'server_vad', threshold: 0.8 })],
  ['server_vad threshold 2', 'cascade', td({ type: 'server_vad', threshold: 2 })],
  ['prefix_padding_ms 6000', 'cascade', td({ type: 'server_vad', prefix_padding_ms: 6000 })],
  ['prefix_padding_ms 20000', 'cascade', td({ type: 'server_vad', prefix_padding_ms: 20000 })],
  ['silence_duration_ms 50', 'cascade', td({ type: 'server_vad', silence_duration_ms: 50 })],
  ['silence_duration_ms 1.5', 'cascade', td({ type: 'server_vad', silence_duration_ms: 1.5 })],
  ['semantic_vad eagerness low', 'cascade', td({ type: 'semantic_vad', eagerness: 'low' })],
  ['semantic_vad eagerness medium', 'cascade', td({ type: 'semantic_vad', eagerness: 'medium' })],
  ['semantic_vad eagerness high', 'cascade', td({ type: 'semantic_vad', eagerness: 'high' })],
  ['semantic_vad eagerness auto', 'cascade', td({ type: 'semantic_vad', eagerness: 'auto' })],
  ['semantic_vad eagerness fast', 'cascade', td({ type: 'semantic_vad', eagerness: 'fast' })],
  ['semantic_vad with a threshold', 'cascade', td({ type: 'semantic_vad', threshold: 0.5 })],
  ['server_vad with an eagerness', 'cascade', td({ type: 'server_vad', eagerness: 'low' })],
  ['turn detection "none"', 'cascade', td({ type: 'none' })],
  ['turn detection null (manual commits)', 'cascade', td(null)],
  ['end_of_turn (not a Realtime field)', 'cascade', td({ type: 'server_vad', end_of_turn: null })],
  ['idle_timeout_ms 10000', 'cascade', td({ type: 'server_vad', idle_timeout_ms: 10000 })],
  ['idle_timeout_ms 10000, self-answering engine', 'self', td({ type: 'server_vad', idle_timeout_ms: 10000 })],
  ['idle_timeout_ms 1000', 'cascade', td({ type: 'server_vad', idle_timeout_ms: 1000 })],
  ['idle_timeout_ms with semantic_vad', 'cascade', td({ type: 'semantic_vad', idle_timeout_ms: 10000 })],
  ['create_response false', 'cascade', td({ type: 'server_vad', create_response: false })],
  ['create_response false, self-answering engine', 'self', td({ type: 'server_vad', create_response: false })],
  ['create_response "no"', 'cascade', td({ type: 'server_vad', create_response: 'no' })],
  ['interrupt_response false', 'cascade', td({ type: 'server_vad', interrupt_response: false })],
  ['interrupt_response false, self-answering engine', 'self', td({ type: 'server_vad', interrupt_response: false })],
  ['input format pcm 24 kHz', 'cascade', input({ format: { type: 'audio/pcm', rate: 24000 } })],
  ['input format pcmu', 'cascade', input({ format: { type: 'audio/pcmu' } })],
  ['input format pcm 16 kHz', 'cascade', input({ format: { type: 'audio/pcm', rate: 16000 } })],
  ['output format pcm', 'cascade', output({ format: { type: 'audio/pcm' } })],
  ['output speed 1', 'cascade', output({ speed: 1 })],
  ['output speed 1.5', 'cascade', output({ speed: 1.5 })],
  ['voice aria', 'cascade', output({ voice: 'aria' })],
  ['voice alloy', 'cascade', output({ voice: 'alloy' })],
  ['noise_reduction near_field', 'cascade', input({ noise_reduction: { type: 'near_field' } })],
  ['noise_reduction null', 'cascade', input({ noise_reduction: null })],
  ['noise_reduction studio', 'cascade', input({ noise_reduction: { type: 'studio' } })],
  ['noise_reduction strength 2', 'cascade', input({ noise_reduction: { type: 'far_field', strength: 2 } })],
  ['transcription language en', 'cascade', input({ transcription: { language: 'en' } })],
  ['transcription language "not a language!"', 'cascade', input({ transcription: { language: 'not a language!' } })],
  ['transcription model gpt-4o-transcribe', 'cascade', input({ transcription: { model: 'gpt-4o-transcribe' } })],
  ['transcription model bogus', 'cascade', input({ transcription: { model: 'bogus' } })],
  ['instructions', 'cascade', { instructions: 'You are Breeze.' }],
  ['instructions 7', 'cascade', { instructions: 7 }],
  ['a function tool', 'cascade', { tools: [TOOL] }],
  ['a function tool, engine without tool calls', 'self', { tools: [TOOL] }],
  ['tool_choice required', 'cascade', { tool_choice: 'required' }],
  ['output_modalities text', 'cascade', { output_modalities: ['text'] }],
  ['max_output_tokens 300', 'cascade', { max_output_tokens: 300 }],
  ['max_output_tokens 5000', 'cascade', { max_output_tokens: 5000 }],
  ['tracing auto', 'cascade', { tracing: 'auto' }],
  ['truncation disabled', 'cascade', { truncation: 'disabled' }],
  ['a stored prompt', 'cascade', { prompt: { id: 'pmpt_1' } }],
];

/** What both paths show of the settings: session.created's and session.updated's own fields. */
function shown(session: any): Record<string, unknown> {
  const { instructions, tools, tool_choice, output_modalities, max_output_tokens, tracing, audio } = session;
  return { instructions, tools, tool_choice, output_modalities, max_output_tokens, tracing, audio };
}

describe('every conversation setting, in a client secret and in a session.update', () => {
  let cascade: ConversationApp;
  let self: TestApp;
  let selfKey: string;

  beforeAll(async () => {
    cascade = await startConversationApp({}, { tls: false });
    self = await startTestApp(databaseTargets()[0]);
    ({ apiKey: selfKey } = await self.newProject());
  }, 120_000);
  afterAll(async () => {
    await cascade?.close();
    await self?.close();
  });

  const appOf = (engine: Engine) =>
    engine === 'cascade' ? { t: cascade.t, key: cascade.apiKey } : { t: self, key: selfKey };
  const socket = (engine: Engine, credential: string) => {
    const { t } = appOf(engine);
    return SocketClient.open(`${t.baseUrl.replace('http', 'ws')}/v1/realtime?model=vendor-voicechat`, {
      headers: { authorization: `Bearer ${credential}` },
    });
  };

  async function bySecret(engine: Engine, fields: Record<string, unknown>): Promise<Answer> {
    const { t, key } = appOf(engine);
    const res = await fetch(`${t.baseUrl}/v1/realtime/client_secrets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session: { type: 'realtime', model: 'vendor-voicechat', ...fields } }),
    });
    const body = (await res.json()) as any;
    if (res.status === 400) return { refused: { kind: 'unserved', param: body.error.param } };
    if (res.status === 422) return { refused: { kind: 'malformed', param: body.detail[0].loc.slice(1).join('.') } };
    expect(res.status).toBe(200);
    const c = await socket(engine, body.value);
    try {
      const created = await c.waitFor('session.created');
      // A secret's settings are refused when it is issued, never after.
      expect(c.ofType('error')).toEqual([]);
      return { shown: shown(created.session) };
    } finally {
      c.ws.close();
    }
  }

  async function byUpdate(engine: Engine, fields: Record<string, unknown>): Promise<Answer> {
    const c = await socket(engine, appOf(engine).key);
    try {
      await c.waitFor('session.created');
      c.send({ type: 'session.update', session: { type: 'realtime', ...fields } });
      const answer = await c.waitFor((e) => e.type === 'session.updated' || e.type === 'error');
      if (answer.type === 'session.updated') return { shown: shown(answer.session) };
      const { code, param } = answer.error;
      return { refused: { kind: String(code).startsWith('unsupported_') ? 'unserved' : 'malformed', param } };
    } finally {
      c.ws.close();
    }
  }

  // Paths in loc form: tools[0] is `tools.0` there; the socket's param is rewritten alike.
  const sameParam = (answer: Answer): Answer =>
    'refused' in answer
      ? { refused: { ...answer.refused, param: answer.refused.param.replace(/\[(\d+)\]/g, '.$1') } }
      : answer;

  it.each(CASES)(
    '%s (%s engine)',
    async (_name, engine, fields) => {
      const [secret, update] = [await bySecret(engine, fields), await byUpdate(engine, fields)];
      expect(sameParam(secret)).toEqual(sameParam(update));
    },
    30_000,
  );
});
