import { Parser } from '@asyncapi/parser';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chatBody, startFakeChatServer, type ChatPlan } from '../../src/engines/cascade/testing/fake-chat-server';
import { startFakeSpeechServer } from '../../src/engines/cascade/testing/fake-speech-server';
import type { RecordedRequest, RecordingServer } from '../../src/engines/cascade/testing/recording-server';
import { VOICECHAT } from '../../src/engines';
import { buildAsyncApiDocument } from '../../src/platform/openapi/asyncapi-document';
import { ASYNCAPI_INPUTS, DIALECTS } from '../../src/gateway/dialects';
import { chunks, silence, tone } from '../support/audio';
import { schemaProblems } from '../support/json-schema-check';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

const COMMITTED = join(__dirname, '../../asyncapi/asyncapi.json');
/** One utterance for the scripted engine: speech, then more than the 500 ms VAD pause. */
const UTTERANCE = Buffer.concat([tone(1200), silence(800)]);

/** Whether each channel's real parser accepts a client message: each dialect pairs its channels with their parsers. */
const ACCEPTS: Record<string, (text: string) => boolean> = Object.fromEntries(
  DIALECTS.flatMap((dialect) => dialect.channels.map((channel) => [channel.doc.id, channel.accepts] as const)),
);

type Doc = Record<string, any>;

describe('AsyncAPI document of the sockets', () => {
  let t: TestApp;
  let doc: Doc;
  let apiKey: string;
  let wsBase: string;

  beforeAll(async () => {
    t = await startTestApp(databaseTargets()[0], {
      env: { MAX_SESSION_SECONDS: '4', CONCURRENT_SESSIONS_LIMIT: '50' },
    });
    ({ apiKey } = await t.newProject());
    wsBase = t.baseUrl.replace('http', 'ws');
    const res = await t.app.inject({ method: 'GET', url: '/v1/asyncapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(() => t?.close());

  const deref = (schema: Doc): Doc =>
    schema.$ref
      ? deref(
          schema.$ref
            .split('/')
            .slice(1)
            .reduce((node: Doc, key: string) => node[key], doc),
        )
      : schema;

  /** Every JSON frame a socket sent must be one of its channel's server messages, field for field. */
  const conform = (channelId: string, client: SocketClient): string[] => {
    const channel = doc.channels[channelId];
    const sent = doc.operations[`${channelId}.server`].messages.map((m: { $ref: string }) => m.$ref.split('/').pop());
    const json = sent
      .map((name: string) => channel.messages[name])
      .filter((m: Doc) => m.contentType === 'application/json');
    const problems: string[] = [];
    for (const event of client.events) {
      const candidates = json.filter(
        (m: Doc) => schemaProblems(event.type, deref(m.payload).properties.type, doc).length === 0,
      );
      if (candidates.length !== 1) problems.push(`${channelId}: no single message for ${JSON.stringify(event.type)}`);
      else problems.push(...schemaProblems(event, candidates[0].payload, doc, `${channelId} ${event.type}`));
    }
    const binary = sent.some((name: string) => channel.messages[name].contentType === 'application/octet-stream');
    if (client.binary.length > 0 && !binary) problems.push(`${channelId}: binary frames are not documented`);
    return problems;
  };

  it('is served at /v1/asyncapi.json, and matches the committed asyncapi/asyncapi.json (UPDATE_ASYNCAPI=1 accepts a change)', () => {
    const generated = `${JSON.stringify(buildAsyncApiDocument(ASYNCAPI_INPUTS), null, 2)}\n`;
    expect(JSON.stringify(doc, null, 2) + '\n').toBe(generated);
    if (process.env.UPDATE_ASYNCAPI === '1') writeFileSync(COMMITTED, generated);
    expect(readFileSync(COMMITTED, 'utf8')).toBe(generated);
  });

  it('is a valid AsyncAPI 3 document for @asyncapi/parser (no errors, no warnings)', async () => {
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
    const problems = diagnostics
      .filter((d) => d.severity <= 1)
      .map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`);
    expect(problems).toEqual([]);
    expect(document?.version()).toMatch(/^3\./);
    expect(
      document
        ?.channels()
        .all()
        .map((c) => c.address()),
    ).toEqual(expect.arrayContaining(['/v1/live/sessions', '/v1/realtime', '/v1/listen', '/v2/listen']));
  });

  it('documents only sockets the service serves: each address refuses a handshake without credentials with a documented refusal', async () => {
    for (const channel of Object.values<Doc>(doc.channels)) {
      // Query parameters a dialect requires are checked first; without them the refusal is a documented 400.
      const refusal = await SocketClient.refusal(`${wsBase}${channel.address}?encoding=linear16&sample_rate=24000`);
      const answer = { address: channel.address, status: refusal.status, code: refusal.body?.error?.code };
      expect(channel['x-handshake-refusals']).toContainEqual({ status: answer.status, code: answer.code });
      expect(answer.status).not.toBe(404);
    }
    const live = await SocketClient.refusal(`${wsBase}/v1/live/sessions`);
    expect({ status: live.status, code: live.body.error.code }).toEqual({ status: 401, code: 'missing_api_key' });
  });

  it("has close reasons and codes from the session core's close rules", () => {
    const live = doc.channels.live['x-session-ends'];
    expect(live).toContainEqual(
      expect.objectContaining({ close_reason: 'close_requested', detail: 'client_requested', close_code: 1000 }),
    );
    expect(live).toContainEqual(
      expect.objectContaining({ close_reason: 'connection_lost', detail: 'server_shutdown', close_code: 1001 }),
    );
    expect(doc.channels.listen['x-session-ends']).toContainEqual(
      expect.objectContaining({ close_reason: 'expired', detail: 'idle_timeout', close_code: 1011 }),
    );
    expect(doc.components.schemas.CloseReason.enum).toEqual(['close_requested', 'expired', 'connection_lost']);
  });

  it("documents client messages the dialects' real parsers accept", () => {
    for (const [id, channel] of Object.entries<Doc>(doc.channels)) {
      expect({ id, hasParser: id in ACCEPTS }).toEqual({ id, hasParser: true });
      const received = doc.operations[`${id}.client`].messages.map((m: { $ref: string }) => m.$ref.split('/').pop());
      for (const name of received) {
        const message = channel.messages[name];
        if (message.contentType !== 'application/json') continue;
        expect({ name, examples: (message.examples ?? []).length > 0 }).toEqual({ name, examples: true });
        for (const { payload } of message.examples) {
          expect({ name, problems: schemaProblems(payload, message.payload, doc) }).toEqual({ name, problems: [] });
          expect({ name, accepted: ACCEPTS[id](JSON.stringify(payload)) }).toEqual({ name, accepted: true });
        }
      }
    }
  });

  it('describes every frame of a real live session', async () => {
    const c = await SocketClient.open(`${wsBase}/v1/live/sessions`, { headers: { authorization: `Bearer ${apiKey}` } });
    c.send({ type: 'session.input_audio.append', audio: '' }); // before start: session_not_started
    c.send({ type: 'session.start', event_id: 's1', session: { model: 'vendor-voicechat' } });
    await c.waitFor('session.started');
    c.sendRaw('{not json');
    c.send({ type: 'response.create', event_id: 'r1' });
    c.send({ type: 'session.update', event_id: 'u1', session: { model: 'vendor-asr-streaming' } });
    c.send({ type: 'session.update', event_id: 'u2', session: {} });
    for (const chunk of chunks(UTTERANCE, 100))
      c.send({ type: 'session.input_audio.append', audio: chunk.toString('base64') });
    await c.waitFor((e) => e.type === 'session.turn.event' && e.event.type === 'response_started');
    c.send({ type: 'session.input_audio.mute', event_id: 'm1' });
    c.send({ type: 'session.input_audio.append', audio: silence(80).toString('base64') });
    c.send({ type: 'session.input_audio.unmute' });
    await c.waitFor('session.input_audio.unmuted');
    c.send({ type: 'session.close', event_id: 'c1' });
    await c.waitFor('session.closed');
    expect(await c.waitClosed()).toBe(1000);
    const seen = new Set(c.events.map((e) => e.type));
    for (const type of [
      'error',
      'session.turn.event',
      'session.input_transcript.delta',
      'session.output_audio.delta',
      'session.input_audio.warning',
      'session.usage.updated',
      'session.updated',
      'session.input_audio.muted',
    ]) {
      expect({ type, seen: seen.has(type) }).toEqual({ type, seen: true });
    }
    expect(conform('live', c)).toEqual([]);
  });

  it('describes every frame of a real Realtime session, to its expiry', async () => {
    const c = await SocketClient.open(`${wsBase}/v1/realtime?intent=transcription`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    c.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { transcription: { language: 'en' } } } },
    });
    await c.waitFor('session.updated');
    c.send({ type: 'response.create' });
    c.send({ type: 'input_audio_buffer.commit', event_id: 'empty' });
    for (const chunk of chunks(UTTERANCE, 100))
      c.send({ type: 'input_audio_buffer.append', audio: chunk.toString('base64') });
    await c.waitFor('conversation.item.input_audio_transcription.completed');
    c.send({ type: 'input_audio_buffer.clear' });
    await c.waitFor('input_audio_buffer.cleared');
    await c.waitFor((e) => e.type === 'error' && e.error.code === 'session_expired', 8000);
    await c.waitClosed();
    expect(conform('realtime', c)).toEqual([]);
  });

  describe('a conversation session (a cascade with fake chat and speech upstreams)', () => {
    let conv: TestApp;
    let convKey: string;
    let chat: RecordingServer;
    let speech: RecordingServer;

    /** What the fake chat model answers: a tool call for the time, its result spoken, the rest by the text asked for. */
    const plan = (request: RecordedRequest): ChatPlan => {
      // The last message decides: the whole context is sent every time.
      const last = chatBody(request).messages.at(-1);
      const text = last?.content ?? '';
      if (last?.role === 'tool') return { kind: 'reply', pieces: ['It is', ' noon.'] };
      if (text.includes('What time')) {
        return {
          kind: 'tool_calls',
          calls: [{ id: 'call_1', name: 'get_time', argumentPieces: ['{"tz":', '"UTC"}'] }],
        };
      }
      // Long and slow enough to be cancelled while it runs.
      if (text.includes('Tell a long story')) {
        return { kind: 'reply', pieces: Array.from({ length: 40 }, () => 'Once upon a time. '), delayMs: 200 };
      }
      return { kind: 'reply', pieces: ['A short', ' answer.'] };
    };

    beforeAll(async () => {
      chat = await startFakeChatServer(plan);
      speech = await startFakeSpeechServer(() => ({ msPerChar: 5, chunkMs: 100, chunkEveryMs: 5 }));
      const engines = {
        engines: {
          // The scripted engine hears loudness: a spoken turn without a recogniser's weight.
          listen: { kind: 'scripted' },
          voicechat: {
            kind: 'cascade',
            listener: 'listen',
            languages: ['en'],
            chat: { url: chat.baseUrl, model: 'llama-3.2-3b-instruct', maxTokens: 80, timeoutMs: 5000 },
            speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart', timeoutMs: 5000 },
          },
        },
        models: { 'vendor-asr-streaming': 'listen', [VOICECHAT]: 'voicechat' },
      };
      conv = await startTestApp(databaseTargets()[0], { env: { ENGINES_JSON: JSON.stringify(engines) } });
      ({ apiKey: convKey } = await conv.newProject());
    }, 120_000);
    afterAll(async () => {
      await conv?.close();
      await chat?.close();
      await speech?.close();
    });

    it('describes every frame: items, a tool call and its answer, text, a cancel, a spoken turn, refusals', async () => {
      const c = await SocketClient.open(`${conv.baseUrl.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, {
        headers: { authorization: `Bearer ${convKey}` },
      });
      const nth = (type: string, n: number, timeoutMs = 10_000) =>
        c.waitFor(() => c.ofType(type).length >= n, timeoutMs).then(() => c.ofType(type)[n - 1]);
      await c.waitFor('session.created');
      c.send({
        type: 'session.update',
        session: {
          type: 'realtime',
          instructions: 'You are Aria.',
          tools: [{ type: 'function', name: 'get_time', description: 'The time', parameters: { type: 'object' } }],
          tool_choice: 'auto',
          max_output_tokens: 200,
          tracing: 'auto',
          audio: {
            input: {
              transcription: { model: 'gpt-4o-mini-transcribe' },
              turn_detection: { type: 'server_vad', create_response: true, interrupt_response: true },
            },
          },
        },
      });
      await c.waitFor('session.updated');
      c.send({ type: 'output_audio_buffer.clear', event_id: 'webrtc' });
      c.send({ type: 'conversation.item.retrieve', item_id: 'nope', event_id: 'missing' });
      c.send({ type: 'response.cancel' });
      c.send({ type: 'input_audio_buffer.commit', event_id: 'empty' });

      // A text turn whose answer is a tool call; its output; the spoken answer.
      c.send({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What time is it?' }] },
      });
      c.send({ type: 'response.create' });
      await nth('response.done', 1);
      c.send({
        type: 'conversation.item.create',
        item: { type: 'function_call_output', call_id: 'call_1', output: '{"time":"12:00"}' },
      });
      c.send({ type: 'response.create' });
      const spoken = await nth('response.done', 2);
      const answer = spoken.response.output[0].id;
      c.send({ type: 'conversation.item.retrieve', item_id: answer });
      c.send({ type: 'conversation.item.truncate', item_id: answer, content_index: 0, audio_end_ms: 100 });
      await c.waitFor('conversation.item.truncated');

      // Out of band, text only; then one cancelled while it runs (a second one meanwhile is refused).
      c.send({
        type: 'response.create',
        response: { conversation: 'none', output_modalities: ['text'], metadata: { purpose: 'summary' } },
      });
      await nth('response.done', 3);
      c.send({
        type: 'conversation.item.create',
        item: {
          id: 'story',
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'Tell a long story' }],
        },
      });
      c.send({ type: 'response.create' });
      const story = (await nth('response.created', 4)).response.id;
      await c.waitFor((e) => e.type === 'response.output_audio.delta' && e.response_id === story);
      c.send({ type: 'response.create', event_id: 'second' });
      c.send({ type: 'response.cancel' });
      await c.waitFor((e) => e.type === 'response.done' && e.response.status === 'cancelled');
      c.send({ type: 'conversation.item.delete', item_id: 'story' });
      await c.waitFor('conversation.item.deleted');

      // A spoken turn, answered on its own (create_response); a clear.
      for (const chunk of chunks(UTTERANCE, 100))
        c.send({ type: 'input_audio_buffer.append', audio: chunk.toString('base64') });
      await c.waitFor('conversation.item.input_audio_transcription.completed');
      await nth('response.done', 5, 15_000);
      c.send({ type: 'input_audio_buffer.clear' });
      await c.waitFor('input_audio_buffer.cleared');
      // The idle timeout, set after audio (it may change at any time): silence prompts the user.
      c.send({
        type: 'session.update',
        session: { audio: { input: { turn_detection: { type: 'server_vad', idle_timeout_ms: 5000 } } } },
      });
      await c.waitFor('input_audio_buffer.timeout_triggered', 15_000);
      await nth('response.done', 6, 15_000);
      c.ws.close(1000);
      await c.waitClosed();

      const codes = new Set(c.ofType('error').map((e) => e.error.code));
      for (const code of [
        'unsupported_event',
        'item_not_found',
        'response_cancel_not_active',
        'conversation_already_has_active_response',
        'input_audio_buffer_commit_empty',
      ]) {
        expect({ code, seen: codes.has(code) }).toEqual({ code, seen: true });
      }
      const documented = doc.operations['realtime-conversation.server'].messages.map((m: { $ref: string }) =>
        m.$ref.split('/').pop(),
      );
      // A keypress is a phone call's: telephony-sideband.e2e-spec.ts holds it to this document.
      const seen = new Set([...c.events.map((e) => e.type), 'input_audio_buffer.dtmf_event_received']);
      // The session above sends every documented server message: none is documented untried.
      expect(documented.filter((type: string) => !seen.has(type))).toEqual([]);
      expect(conform('realtime-conversation', c)).toEqual([]);
    }, 90_000);
  });

  it('describes every frame of a real Deepgram session', async () => {
    const query =
      'encoding=linear16&sample_rate=24000&interim_results=true&vad_events=true&utterance_end_ms=1000&punctuate=true';
    const c = await SocketClient.open(`${wsBase}/v1/listen?${query}`, {
      headers: { authorization: `Token ${apiKey}` },
    });
    for (const chunk of chunks(Buffer.concat([UTTERANCE, silence(1000)]), 100)) c.sendRaw(chunk, true);
    await c.waitFor('UtteranceEnd');
    c.send({ type: 'KeepAlive' });
    for (const chunk of chunks(tone(400), 100)) c.sendRaw(chunk, true);
    c.send({ type: 'Finalize' });
    await c.waitFor((e) => e.type === 'Results' && e.from_finalize === true);
    c.send({ type: 'CloseStream' });
    await c.waitFor('Metadata');
    expect(await c.waitClosed()).toBe(1000);
    expect(new Set(c.events.map((e) => e.type))).toEqual(
      new Set(['Results', 'SpeechStarted', 'UtteranceEnd', 'Metadata']),
    );
    expect(conform('listen', c)).toEqual([]);
  });

  it('describes every frame of a real Deepgram Flux session, and of one ended by an undecodable message', async () => {
    const query = 'model=flux-general-en&encoding=linear16&sample_rate=24000&eager_eot_threshold=0.5&keyterm=Ada';
    const headers = { authorization: `Token ${apiKey}` };
    const c = await SocketClient.open(`${wsBase}/v2/listen?${query}`, { headers });
    await c.waitFor('Connected');
    c.send({ type: 'Configure', thresholds: { eot_timeout_ms: 3000 }, keyterms: ['Ada', 'Bob'] });
    c.send({ type: 'Configure', thresholds: { eot_threshold: 0.2 } });
    await c.waitFor('ConfigureFailure');
    for (const chunk of chunks(UTTERANCE, 100)) c.sendRaw(chunk, true);
    await c.waitFor((e) => e.type === 'TurnInfo' && e.event === 'EndOfTurn');
    for (const chunk of chunks(tone(400), 100)) c.sendRaw(chunk, true);
    await c.waitFor((e) => e.type === 'TurnInfo' && e.event === 'StartOfTurn' && e.turn_index === 1);
    c.send({ type: 'ForceEndTurn' });
    await c.waitFor((e) => e.type === 'TurnInfo' && e.event === 'EndOfTurn' && e.trigger === 'manual');
    c.send({ type: 'CloseStream' });
    expect(await c.waitClosed()).toBe(1000);
    expect(new Set(c.events.map((e) => e.event ?? e.type))).toEqual(
      new Set(['Connected', 'ConfigureSuccess', 'ConfigureFailure', 'StartOfTurn', 'EndOfTurn']),
    );
    expect(c.events.find((e) => e.type === 'ConfigureSuccess')).toMatchObject({
      thresholds: { eot_threshold: 0.7, eager_eot_threshold: 0.5, eot_timeout_ms: 3000 },
      keyterms: ['Ada', 'Bob'],
    });
    expect(conform('flux', c)).toEqual([]);

    const bad = await SocketClient.open(`${wsBase}/v2/listen?${query}`, { headers });
    await bad.waitFor('Connected');
    bad.sendRaw('{not json');
    await bad.waitFor('Error');
    expect(await bad.waitClosed()).toBe(1008);
    expect(bad.events.find((e) => e.type === 'Error')).toMatchObject({ code: 'UNPARSABLE_CLIENT_MESSAGE' });
    expect(conform('flux', bad)).toEqual([]);
  });
});
