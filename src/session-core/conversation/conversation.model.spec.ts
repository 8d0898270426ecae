import type { ResponseRequest } from '../engine/engine.port';
import { ConversationModel, type ConversationEffect } from './conversation.model';
import type { ConversationEvent, ConversationItem } from './conversation.types';

const events = (effects: ConversationEffect[]) =>
  effects.filter((e) => e.kind === 'emit').map((e) => (e as { event: ConversationEvent }).event);
const types = (effects: ConversationEffect[]) => events(effects).map((e) => e.type);
const request = (effects: ConversationEffect[]) =>
  (effects.find((e) => e.kind === 'respond') as { request: ResponseRequest } | undefined)?.request;
/** The id of the response a response_created among the effects names. */
const createdId = (effects: ConversationEffect[]) =>
  (
    events(effects).find((e) => e.type === 'response_created') as Extract<
      ConversationEvent,
      { type: 'response_created' }
    >
  ).response.id;
const userText = (text: string, id = ''): ConversationItem => ({
  id,
  type: 'message',
  role: 'user',
  status: 'completed',
  content: [{ type: 'input_text', text }],
});

describe('ConversationModel', () => {
  let model: ConversationModel;
  beforeEach(() => {
    model = new ConversationModel('s1', true);
  });

  it('inserts items after previous_item_id, first for null, and names the true predecessor', () => {
    const a = events(model.createItem(userText('a'), undefined));
    const b = events(model.createItem(userText('b', 'mine'), undefined));
    const first = events(model.createItem(userText('c'), null));
    expect(a[0]).toMatchObject({ type: 'item_added', previousItemId: null });
    expect(b[0]).toMatchObject({ type: 'item_added', item: { id: 'mine' }, previousItemId: 'item_s1_1' });
    expect(first[0]).toMatchObject({ type: 'item_added', previousItemId: null });
    const after = events(model.createItem(userText('d'), 'item_s1_1'));
    expect(after[0]).toMatchObject({ previousItemId: 'item_s1_1' });
    const req = request(model.createResponse({ conversation: 'auto' }));
    expect(req!.messages.map((m) => m.content)).toEqual(['c', 'a', 'd', 'b']);
  });

  it('refuses a duplicate id, an unknown predecessor and unknown items in OpenAI terms', () => {
    model.createItem(userText('a', 'x'), undefined);
    expect(events(model.createItem(userText('b', 'x'), undefined))[0]).toMatchObject({
      type: 'error',
      error: { code: 'item_already_exists', param: 'item.id' },
    });
    expect(events(model.createItem(userText('b'), 'nope'))[0]).toMatchObject({
      error: { code: 'item_not_found', param: 'previous_item_id' },
    });
    expect(events(model.retrieveItem('nope', 'evt_1'))[0]).toMatchObject({
      error: { code: 'item_not_found', clientEventId: 'evt_1' },
    });
    expect(types(model.deleteItem('x'))).toEqual(['item_deleted']);
    expect(types(model.deleteItem('x'))).toEqual(['error']);
  });

  it('makes a text response: created, request with the settings, item and part, deltas, done with usage', () => {
    model.settings = { ...model.settings, instructions: 'Be brief.', audio: false, maxOutputTokens: 50 };
    model.createItem(userText('hi'), undefined);
    const started = model.createResponse({ conversation: 'auto' }, 'evt_r');
    expect(types(started)).toEqual(['response_created']);
    expect(events(started)[0]).toMatchObject({ clientEventId: 'evt_r', response: { status: 'in_progress' } });
    const req = request(started)!;
    expect(req).toMatchObject({ instructions: 'Be brief.', audio: false, maxOutputTokens: 50, tools: [] });
    const id = req.responseId;
    expect(types(model.responseEvent(id, { type: 'text', delta: 'Hel' }))).toEqual([
      'output_item_added',
      'item_added',
      'content_part_added',
      'output_text_delta',
    ]);
    model.responseEvent(id, { type: 'text', delta: 'lo.' });
    const done = model.responseEvent(id, {
      type: 'finished',
      status: 'completed',
      reason: null,
      usage: { inputTokens: 5, outputTokens: 2 },
    });
    expect(types(done)).toEqual([
      'output_text_done',
      'content_part_done',
      'item_done',
      'output_item_done',
      'response_done',
    ]);
    expect(events(done).at(-1)).toMatchObject({
      response: {
        status: 'completed',
        usage: { inputTokens: 5, outputTokens: 2 },
        output: [{ type: 'message', status: 'completed', content: [{ type: 'output_text', text: 'Hello.' }] }],
      },
    });
    expect(model.tokens).toEqual({ inputTokens: 5, outputTokens: 2 });
    // The answer is context for the next response.
    expect(request(model.createResponse({ conversation: 'auto' }))!.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello.' },
    ]);
  });

  it('bills each response it sent: the tokens its upstream reported, else the context budget’s estimate', () => {
    const finish = (usage: { inputTokens: number; outputTokens: number } | null) => {
      const id = request(model.createResponse({ conversation: 'auto' }))!.responseId;
      model.responseEvent(id, { type: 'text', delta: 'ok, ça va' }); // 8 ASCII characters and "ç": 3 tokens
      return model.responseEvent(id, { type: 'finished', status: 'completed', reason: null, usage });
    };
    const bills = (effects: ConversationEffect[]) => effects.filter((e) => e.kind === 'bill');
    model.createItem(userText('twelve chars'), undefined); // 3 tokens, and 4 for the message
    const estimated = finish(null);
    expect(bills(estimated)).toEqual([{ kind: 'bill', tokens: { inputTokens: 7, outputTokens: 3 } }]);
    // Shown as its usage too, so response.done says what was billed.
    expect(events(estimated).at(-1)).toMatchObject({ response: { usage: { inputTokens: 7, outputTokens: 3 } } });
    expect(bills(finish({ inputTokens: 12, outputTokens: 3 }))).toEqual([
      { kind: 'bill', tokens: { inputTokens: 12, outputTokens: 3 } },
    ]);
    expect(model.tokens).toEqual({ inputTokens: 19, outputTokens: 6 });
  });

  it('bills a cancelled response for what it was sent, when its upstream reported nothing', () => {
    model.createItem(userText('x'.repeat(400)), undefined);
    const id = request(model.createResponse({ conversation: 'auto' }))!.responseId;
    expect(model.cancelResponse(id).filter((e) => e.kind === 'bill')).toEqual([]);
    const ended = model.responseEvent(id, { type: 'finished', status: 'cancelled', reason: null, usage: null });
    expect(ended.filter((e) => e.kind === 'bill')).toEqual([
      { kind: 'bill', tokens: { inputTokens: 104, outputTokens: 0 } },
    ]);
  });

  it('bills a response the session’s end cuts while its engine is at work: told to stop, billed once, at once', () => {
    model.createItem(userText('x'.repeat(400)), undefined); // 100 tokens, and 4 for the message
    const id = request(model.createResponse({ conversation: 'auto' }))!.responseId;
    model.responseEvent(id, { type: 'text', delta: 'Hello, wo' }); // 9 ASCII characters: 3 tokens
    const ended = model.sessionEnding();
    expect(ended.filter((e) => e.kind !== 'emit')).toEqual([
      { kind: 'cancel', responseId: id },
      { kind: 'bill', tokens: { inputTokens: 104, outputTokens: 3 } },
    ]);
    expect(events(ended).at(-1)).toMatchObject({
      type: 'response_done',
      response: { status: 'cancelled', reason: 'session_ended', usage: { inputTokens: 104, outputTokens: 3 } },
    });
    // The engine's own end, if it comes, is too late and bills nothing more.
    const late = { inputTokens: 1, outputTokens: 1 };
    expect(model.responseEvent(id, { type: 'finished', status: 'cancelled', reason: null, usage: late })).toEqual([]);
    expect(model.tokens).toEqual({ inputTokens: 104, outputTokens: 3 });
  });

  it('at the session’s end, bills a cancelled response still waiting for its engine, and nothing again for one it finished', () => {
    model.createItem(userText('x'.repeat(400)), undefined);
    const cut = request(model.createResponse({ conversation: 'auto' }))!.responseId;
    expect(model.cancelResponse(cut).filter((e) => e.kind !== 'emit')).toEqual([{ kind: 'cancel', responseId: cut }]);
    expect(model.sessionEnding().filter((e) => e.kind === 'bill')).toEqual([
      { kind: 'bill', tokens: { inputTokens: 104, outputTokens: 0 } },
    ]);

    // A voiced answer its engine finished (and billed) is still playing when the session ends.
    const voiced = request(model.createResponse({ conversation: 'auto', audio: true }))!;
    model.audioStarted(voiced.itemId);
    model.responseEvent(voiced.responseId, { type: 'text', delta: 'Hi.' });
    const usage = { inputTokens: 9, outputTokens: 1 };
    model.responseEvent(voiced.responseId, { type: 'finished', status: 'completed', reason: null, usage });
    const ended = model.sessionEnding();
    expect(ended.filter((e) => e.kind !== 'emit')).toEqual([]);
    expect(events(ended).at(-1)).toMatchObject({ response: { status: 'cancelled', reason: 'session_ended' } });
    expect(model.tokens).toEqual({ inputTokens: 113, outputTokens: 1 });
  });

  it('reports a tool call as a completed function_call item, and its output goes back as a tool message', () => {
    const id = request(model.createResponse({ conversation: 'auto' }))!.responseId;
    const call = model.responseEvent(id, { type: 'function_call', callId: 'call_1', name: 'clock', arguments: '{}' });
    const added = events(call).find((e) => e.type === 'output_item_added')!;
    const done = events(call).find((e) => e.type === 'output_item_done')!;
    expect(added).toMatchObject({ item: { type: 'function_call', status: 'in_progress', arguments: '' } });
    expect(done).toMatchObject({
      item: { type: 'function_call', status: 'completed', callId: 'call_1', name: 'clock' },
    });
    expect(types(model.createResponse({ conversation: 'auto' }))).toEqual(['error']);
    model.responseEvent(id, { type: 'finished', status: 'completed', reason: null, usage: null });
    model.createItem(
      { id: '', type: 'function_call_output', status: 'completed', callId: 'call_1', output: '12:00' },
      undefined,
    );
    expect(request(model.createResponse({ conversation: 'auto' }))!.messages).toEqual([
      { role: 'assistant', content: '', toolCalls: [{ callId: 'call_1', name: 'clock', arguments: '{}' }] },
      { role: 'tool', callId: 'call_1', content: '12:00' },
    ]);
  });

  it('ends a voiced response only once its audio played out, and its transcript is the words played', () => {
    const req = request(model.createResponse({ conversation: 'auto' }))!;
    expect(types(model.audioStarted(req.itemId))).toEqual(['output_item_added', 'item_added', 'content_part_added']);
    expect(types(model.audioTranscript(req.itemId, 'Hi', 1000))).toEqual(['output_text_delta']);
    expect(types(model.audioChunk(req.itemId, Buffer.alloc(3840), 1000))).toEqual(['output_audio_delta']);
    model.audioTranscript(req.itemId, ' there', 1400);
    // Voiced answers show their text as the transcript, with the audio.
    expect(model.responseEvent(req.responseId, { type: 'text', delta: 'Hi there' })).toEqual([]);
    // Billed now (no usage reported: 8 ASCII characters are 2 tokens); nothing is shown before the voice ends.
    expect(
      model.responseEvent(req.responseId, { type: 'finished', status: 'completed', reason: null, usage: null }),
    ).toEqual([{ kind: 'bill', tokens: { inputTokens: 0, outputTokens: 2 } }]);
    const done = model.audioDone(req.itemId, false);
    expect(types(done)).toEqual([
      'output_audio_done',
      'output_text_done',
      'content_part_done',
      'item_done',
      'output_item_done',
      'response_done',
    ]);
    expect(events(done)[1]).toMatchObject({ text: 'Hi there', audio: true });
    // The client heard 300 ms: only the first word stays.
    expect(types(model.truncateItem(req.itemId, 0, 300))).toEqual(['item_truncated']);
    expect(events(model.retrieveItem(req.itemId))[0]).toMatchObject({
      item: { status: 'incomplete', content: [{ type: 'output_audio', transcript: 'Hi' }] },
    });
    expect(types(model.truncateItem(req.itemId, 1, 300))).toEqual(['error']);
  });

  it('cancels: the engine is told, nothing of it is sent after, and response.done says cancelled', () => {
    const req = request(model.createResponse({ conversation: 'auto' }))!;
    model.audioStarted(req.itemId);
    const cancel = model.cancelResponse(undefined, 'evt_c');
    expect(cancel).toEqual([{ kind: 'cancel', responseId: req.responseId }]);
    expect(model.audioChunk(req.itemId, Buffer.alloc(10), 0)).toEqual([]);
    expect(model.audioTranscript(req.itemId, 'late', 0)).toEqual([]);
    const done = model.responseEvent(req.responseId, {
      type: 'finished',
      status: 'cancelled',
      reason: null,
      usage: null,
    });
    expect(events(done).at(-1)).toMatchObject({
      type: 'response_done',
      response: { status: 'cancelled', reason: 'client_cancelled' },
    });
    expect(events(model.cancelResponse(undefined))[0]).toMatchObject({ error: { code: 'response_cancel_not_active' } });
  });

  it('answers a spoken turn by itself, and the user speaking over the answer cancels it (turn_detected)', () => {
    expect(types(model.speechStarted('e1', 100))).toEqual(['input_speech_started']);
    expect(types(model.speechStopped('e1', 900))).toEqual(['input_speech_stopped', 'input_committed', 'item_added']);
    const done = model.inputTranscript('e1', '', true, 'what time is it', 0.8);
    expect(types(done)).toEqual(['input_transcript_done', 'item_done', 'response_created']);
    const req = request(done)!;
    expect(req.messages).toEqual([{ role: 'user', content: 'what time is it' }]);
    model.audioStarted(req.itemId);
    const barge = model.speechStarted('e2', 2000);
    expect(barge).toContainEqual({ kind: 'cancel', responseId: req.responseId });
    const end = model.responseEvent(req.responseId, {
      type: 'finished',
      status: 'cancelled',
      reason: null,
      usage: null,
    });
    expect(events(end).at(-1)).toMatchObject({ response: { status: 'cancelled', reason: 'turn_detected' } });
  });

  it('waits for the running response before answering a turn, and does not answer an empty one', () => {
    const req = request(model.createResponse({ conversation: 'auto' }))!;
    model.speechStopped('e1', 100);
    expect(types(model.inputTranscript('e1', '', true, '  ', 0.1))).not.toContain('response_created');
    model.speechStopped('e2', 200);
    // (a text response is not cut by a turn that ends without speech_started)
    expect(request(model.inputTranscript('e2', '', true, 'and now', 0.5))).toBeUndefined();
    const done = model.responseEvent(req.responseId, {
      type: 'finished',
      status: 'completed',
      reason: null,
      usage: null,
    });
    expect(types(done).slice(-2)).toEqual(['response_done', 'response_created']);
    expect(request(done)).toBeDefined();
  });

  it('holds a response asked for right after a manual commit until the turn is transcribed (LiveKit)', () => {
    model.settings = { ...model.settings, createResponse: false };
    model.speechStarted('e1', 100);
    expect(types(model.committed('evt_commit'))).toEqual(['input_committed', 'item_added']);
    // response.create at once: created now (the client waits for it), the engine asked once the words are in.
    const started = model.createResponse({ conversation: 'auto' }, 'evt_r');
    expect(types(started)).toEqual(['response_created']);
    expect(request(started)).toBeUndefined();
    expect(types(model.createResponse({ conversation: 'auto' }))).toEqual(['error']);
    const heard = model.inputTranscript('e1', '', true, 'what time is it', 0.8);
    expect(types(heard)).toEqual(['input_transcript_done', 'item_done']);
    expect(request(heard)).toMatchObject({
      responseId: createdId(started),
      messages: [{ role: 'user', content: 'what time is it' }],
    });
    // Text already in the conversation goes at once.
    model.responseEvent(request(heard)!.responseId, {
      type: 'finished',
      status: 'completed',
      reason: null,
      usage: null,
    });
    model.createItem(userText('and now?'), undefined);
    expect(request(model.createResponse({ conversation: 'auto' }))).toBeDefined();
  });

  it('answers a turn transcribed while its response was held once, and a held response cancels without the engine', () => {
    model.speechStopped('e1', 100);
    const started = model.createResponse({ conversation: 'auto' });
    expect(request(started)).toBeUndefined();
    // create_response would answer the turn too: the held response is its answer.
    const heard = model.inputTranscript('e1', '', true, 'hello', 0.5);
    const req = request(heard)!;
    expect(types(heard)).not.toContain('response_created');
    const done = model.responseEvent(req.responseId, {
      type: 'finished',
      status: 'completed',
      reason: null,
      usage: null,
    });
    expect(types(done).at(-1)).toBe('response_done');

    model.speechStopped('e2', 900);
    const held = model.createResponse({ conversation: 'auto' });
    const cancelled = model.cancelResponse(undefined);
    expect(cancelled.some((e) => e.kind === 'cancel')).toBe(false);
    expect(events(cancelled).at(-1)).toMatchObject({
      type: 'response_done',
      response: { id: createdId(held), status: 'cancelled', reason: 'client_cancelled' },
    });
    // Its turn is then answered on its own (create_response).
    expect(request(model.inputTranscript('e2', '', true, 'bye', 0.3))!.messages.at(-1)).toEqual({
      role: 'user',
      content: 'bye',
    });
  });

  it('keeps an out-of-band response out of the conversation, made from its own input', () => {
    model.createItem(userText('in the conversation', 'kept'), undefined);
    const started = model.createResponse({
      conversation: 'none',
      input: [{ reference: 'kept' }, userText('classify it')],
      metadata: { topic: 'x' },
    });
    const req = request(started)!;
    expect(req.messages.map((m) => m.content)).toEqual(['in the conversation', 'classify it']);
    expect(types(model.responseEvent(req.responseId, { type: 'text', delta: 'ok' }))).not.toContain('item_added');
    const done = model.responseEvent(req.responseId, {
      type: 'finished',
      status: 'incomplete',
      reason: 'max_output_tokens',
      usage: null,
    });
    expect(events(done).at(-1)).toMatchObject({
      response: { conversation: 'none', status: 'incomplete', reason: 'max_output_tokens', metadata: { topic: 'x' } },
    });
    const next = model.createResponse({ conversation: 'auto' });
    expect(request(next)!.messages).toHaveLength(1);
    model.responseEvent(request(next)!.responseId, {
      type: 'finished',
      status: 'completed',
      reason: null,
      usage: null,
    });
    expect(events(model.createResponse({ conversation: 'none', input: [{ reference: 'gone' }] }))).toMatchObject([
      { type: 'error', error: { code: 'item_not_found', param: 'response.input' } },
    ]);
  });

  it('with an engine that answers by itself: its answer is a response, and response.create is refused', () => {
    const own = new ConversationModel('s2', false);
    expect(events(own.createResponse({ conversation: 'auto' }))[0]).toMatchObject({
      error: { code: 'unsupported_event' },
    });
    own.speechStopped('e1', 100);
    expect(request(own.inputTranscript('e1', '', true, 'hello', 0.5))).toBeUndefined();
    expect(types(own.audioStarted('engine_item'))).toEqual([
      'response_created',
      'output_item_added',
      'item_added',
      'content_part_added',
    ]);
    expect(types(own.audioDone('engine_item', false)).at(-1)).toBe('response_done');
  });
});
