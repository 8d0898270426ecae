import type { ResponseRequest } from '../engine/engine.port';
import { ConversationModel, type ConversationEffect } from './conversation.model';
import type { ConversationEvent } from './conversation.types';
import { IdleTimeout, idleTimedOut } from './idle-timeout';

const events = (effects: ConversationEffect[]) =>
  effects.filter((e) => e.kind === 'emit').map((e) => (e as { event: ConversationEvent }).event);
const types = (effects: ConversationEffect[]) => events(effects).map((e) => e.type);
const request = (effects: ConversationEffect[]) =>
  (effects.find((e) => e.kind === 'respond') as { request: ResponseRequest } | undefined)?.request;
const finished = { type: 'finished', status: 'completed', reason: null, usage: null } as const;

describe('ConversationModel with interrupt_response: false', () => {
  let model: ConversationModel;
  beforeEach(() => {
    model = new ConversationModel('s1', true);
    model.settings.interruptResponse = false;
  });

  /** A spoken turn answered with a voiced response that is playing. */
  function answerPlaying(): ResponseRequest {
    model.speechStarted('e1', 100);
    model.speechStopped('e1', 900);
    const req = request(model.inputTranscript('e1', '', true, 'tell me a story', 0.8))!;
    model.audioStarted(req.itemId);
    model.audioChunk(req.itemId, Buffer.alloc(3840), 1000);
    return req;
  }

  it('hears the user over the answer (the turn is committed and transcribed) without cutting it', () => {
    const req = answerPlaying();
    const over = model.speechStarted('e2', 2000);
    expect(over).toEqual([
      { kind: 'emit', event: { type: 'input_speech_started', itemId: 'item_s1_3', audioStartMs: 2000 } },
    ]);
    expect(types(model.audioChunk(req.itemId, Buffer.alloc(3840), 2080))).toEqual(['output_audio_delta']);
    expect(types(model.speechStopped('e2', 3000))).toEqual(['input_speech_stopped', 'input_committed', 'item_added']);
    expect(types(model.inputTranscript('e2', 'wait', false, 'wait', 0))).toEqual(['input_transcript_delta']);
    // The turn ends mid-answer: one response at a time, so its answer waits for this one.
    const turnDone = model.inputTranscript('e2', '', true, 'wait a moment', 1);
    expect(types(turnDone)).toEqual(['input_transcript_done', 'item_done']);
    expect(model.responding).toBe(true);

    expect(types(model.responseEvent(req.responseId, finished))).toEqual([]);
    const played = model.audioDone(req.itemId, false);
    const doneAt = types(played).indexOf('response_done');
    expect(events(played)[doneAt]).toMatchObject({ response: { id: req.responseId, status: 'completed' } });
    expect(types(played).slice(doneAt)).toEqual(['response_done', 'response_created']);
    const next = request(played)!;
    expect(next.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'tell me a story'],
      ['user', 'wait a moment'],
    ]);
  });

  it('answers nothing after the answer when create_response is false: the turn is only committed', () => {
    const req = answerPlaying();
    model.settings.createResponse = false;
    model.speechStarted('e2', 2000);
    model.speechStopped('e2', 3000);
    expect(types(model.inputTranscript('e2', '', true, 'hmm', 1))).toEqual(['input_transcript_done', 'item_done']);
    model.responseEvent(req.responseId, finished);
    expect(types(model.audioDone(req.itemId, false)).at(-1)).toBe('response_done');
    expect(model.responding).toBe(false);
  });

  it('still cuts the answer when set back to true', () => {
    const req = answerPlaying();
    model.settings.interruptResponse = true;
    expect(model.speechStarted('e2', 2000)).toContainEqual({ kind: 'cancel', responseId: req.responseId });
  });
});

describe('IdleTimeout', () => {
  const T = 1_000_000;
  const created = { type: 'response_created', response: {} } as unknown as ConversationEvent;
  const done = { type: 'response_done', response: {} } as unknown as ConversationEvent;
  const speech = (type: 'input_speech_started' | 'input_speech_stopped') =>
    ({ type, itemId: 'i', audioStartMs: 0, audioEndMs: 0 }) as ConversationEvent;

  it('counts from the last response.done (its audio played out) and fires once with the silent segment', () => {
    const idle = new IdleTimeout();
    idle.configure(8000, T, 0);
    idle.observe(created, T + 100, 100);
    expect(idle.deadlineMs).toBeNull();
    idle.observe(done, T + 3000, 3000);
    expect(idle.deadlineMs).toBe(T + 11_000);
    expect(idle.fire(T + 10_999, 10_999)).toBeNull();
    expect(idle.fire(T + 11_000, 11_000)).toEqual({ audioStartMs: 3000, audioEndMs: 11_000 });
    expect(idle.deadlineMs).toBeNull();
    expect(idle.fire(T + 30_000, 30_000)).toBeNull();
    // The prompt's own response starts it again once it is done.
    idle.observe(created, T + 11_010, 11_010);
    idle.observe(done, T + 14_000, 14_000);
    expect(idle.deadlineMs).toBe(T + 22_000);
  });

  it('does not fire while a response plays, however long it plays', () => {
    const idle = new IdleTimeout();
    idle.configure(5000, T, 0);
    idle.observe(created, T + 10, 10);
    expect(idle.fire(T + 60_000, 60_000)).toBeNull();
  });

  it('is reset by speech: stopped while the user speaks, counted again from the end of the speech', () => {
    const idle = new IdleTimeout();
    idle.configure(5000, T, 0);
    idle.observe(done, T, 0);
    idle.observe(speech('input_speech_started'), T + 4000, 4000);
    expect(idle.deadlineMs).toBeNull();
    expect(idle.fire(T + 5000, 5000)).toBeNull();
    idle.observe(speech('input_speech_stopped'), T + 7000, 7000);
    expect(idle.deadlineMs).toBe(T + 12_000);
    // Speech that ends while a response runs (interrupt_response: false) counts from that response's end.
    idle.observe(created, T + 7100, 7100);
    idle.observe(speech('input_speech_started'), T + 8000, 8000);
    idle.observe(speech('input_speech_stopped'), T + 9000, 9000);
    expect(idle.deadlineMs).toBeNull();
    idle.observe(done, T + 9500, 9500);
    expect(idle.deadlineMs).toBe(T + 14_500);
  });

  it('is turned off by an update, and a new value counts from when it was set', () => {
    const idle = new IdleTimeout();
    idle.configure(5000, T, 0);
    idle.observe(done, T, 0);
    idle.configure(null, T + 1000, 1000);
    expect(idle.deadlineMs).toBeNull();
    expect(idle.fire(T + 60_000, 60_000)).toBeNull();
    idle.configure(6000, T + 60_000, 60_000);
    expect(idle.deadlineMs).toBe(T + 66_000);
    idle.configure(6000, T + 61_000, 61_000); // the same value again changes nothing
    expect(idle.deadlineMs).toBe(T + 66_000);
    expect(idle.fire(T + 66_000, 66_000)).toEqual({ audioStartMs: 60_000, audioEndMs: 66_000 });
  });

  it('set while a response plays, it counts from that response.done', () => {
    const idle = new IdleTimeout();
    idle.observe(created, T, 0);
    idle.configure(5000, T + 100, 100);
    expect(idle.deadlineMs).toBeNull();
    idle.observe(done, T + 2000, 2000);
    expect(idle.deadlineMs).toBe(T + 7000);
  });
});

describe('idleTimedOut', () => {
  const segment = { audioStartMs: 3000, audioEndMs: 11_000 };

  it('reports the timeout, commits the silent audio as a user item and asks for a response with a note of the silence', () => {
    const model = new ConversationModel('s1', true);
    model.createItem(
      {
        id: 'a1',
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Hi!' }],
      },
      undefined,
    );
    const out = idleTimedOut(model, segment, 8000);
    expect(types(out)).toEqual(['input_timeout', 'input_committed', 'item_added', 'item_done', 'response_created']);
    const [timeout, committed, added] = events(out);
    expect(timeout).toEqual({ type: 'input_timeout', itemId: 'item_s1_1', audioStartMs: 3000, audioEndMs: 11_000 });
    expect(committed).toEqual({ type: 'input_committed', itemId: 'item_s1_1', previousItemId: 'a1' });
    expect(added).toMatchObject({
      item: { id: 'item_s1_1', role: 'user', content: [{ type: 'input_audio', transcript: null }] },
    });
    const req = request(out)!;
    expect(req.messages).toEqual([
      { role: 'assistant', content: 'Hi!' },
      { role: 'user', content: '(The user has said nothing for 8 seconds.)' },
    ]);
    // The note is not an item of the conversation.
    expect(events(model.retrieveItem('item_s1_1_note'))[0]).toMatchObject({ error: { code: 'item_not_found' } });
  });

  it('with create_response false, or a response running, it commits the item and asks for nothing', () => {
    const model = new ConversationModel('s1', true);
    model.settings.createResponse = false;
    expect(types(idleTimedOut(model, segment, 8000))).toEqual([
      'input_timeout',
      'input_committed',
      'item_added',
      'item_done',
    ]);
    model.settings.createResponse = true;
    model.createResponse({ conversation: 'auto' });
    const out = idleTimedOut(model, segment, 8000);
    expect(types(out)).toEqual(['input_timeout', 'input_committed', 'item_added', 'item_done']);
    expect(request(out)).toBeUndefined();
  });
});
