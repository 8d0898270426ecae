import type { ConversationMessage, ConversationTool, ResponseRequest } from '../engine/engine.port';
import { estimateTokens, fitContext, MESSAGE_TOKENS } from './context-budget';
import { ConversationModel, type ConversationEffect } from './conversation.model';
import type { ConversationEvent, ConversationItem } from './conversation.types';

const user = (content: string): ConversationMessage => ({ role: 'user', content });
const bare = { instructions: '', tools: [] as ConversationTool[] };
/** The bytes the messages take in a chat request's JSON. */
const jsonBytes = (messages: readonly ConversationMessage[]) => Buffer.byteLength(JSON.stringify(messages));

describe('estimateTokens', () => {
  it('counts four printable ASCII characters a token and every other UTF-16 unit as one', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('語語語')).toBe(3);
    expect(estimateTokens('😀')).toBe(2);
    expect(estimateTokens('\u0001\n')).toBe(2);
  });

  it('never lets a token take more than 8 bytes of JSON, whatever the text', () => {
    for (const text of ['"\\"\\'.repeat(1000), '語'.repeat(1000), '\u0001'.repeat(1000), '😀'.repeat(500)]) {
      expect(Buffer.byteLength(JSON.stringify(text)) - 2).toBeLessThanOrEqual(8 * estimateTokens(text));
    }
  });
});

describe('fitContext', () => {
  it('keeps the newest messages that fit whole, instructions and tools counted first', () => {
    const messages = ['one', 'two', 'three'].map((word) => user(word.repeat(40)));
    const each = MESSAGE_TOKENS + 30; // "three" × 40 is 200 characters: 50 tokens, the others 30
    const all = fitContext(bare, messages, 1000);
    expect(all).toEqual({ kind: 'fits', messages, dropped: 0 });
    const two = fitContext(bare, messages, each + MESSAGE_TOKENS + 50);
    expect(two).toEqual({ kind: 'fits', messages: messages.slice(1), dropped: 1 });
    const instructions = { instructions: 'x'.repeat(4 * each), tools: [] };
    expect(fitContext(instructions, messages, each + MESSAGE_TOKENS + 50)).toMatchObject({ dropped: 2 });
  });

  it('cuts the newest message to its end when it alone is over, and never sends half a surrogate pair', () => {
    const fitted = fitContext(bare, [user('old'), user(`start ${'😀'.repeat(100)} end`)], MESSAGE_TOKENS + 21);
    if (fitted.kind !== 'fits') throw new Error('over');
    expect(fitted.messages).toHaveLength(1);
    expect(fitted.messages[0].content.endsWith(' end')).toBe(true);
    expect(fitted.messages[0].content.startsWith('😀')).toBe(true);
    expect(estimateTokens(fitted.messages[0].content)).toBeLessThanOrEqual(21);
  });

  it('leaves out a tool result whose call did not fit', () => {
    const call: ConversationMessage = {
      role: 'assistant',
      content: '',
      toolCalls: [{ callId: 'c1', name: 'lookup', arguments: 'x'.repeat(400) }],
    };
    const result: ConversationMessage = { role: 'tool', callId: 'c1', content: 'sunny' };
    const fitted = fitContext(bare, [user('hi'), call, result, user('and?')], 30);
    expect(fitted).toEqual({ kind: 'fits', messages: [user('and?')], dropped: 3 });
  });

  it('refuses instructions and tools that alone are over the budget', () => {
    const tools = [{ name: 'big', description: 'd'.repeat(4000), parameters: { type: 'object' } }];
    expect(fitContext({ instructions: '', tools }, [], 500)).toMatchObject({ kind: 'over' });
    expect(fitContext({ instructions: '語'.repeat(501), tools: [] }, [], 500)).toMatchObject({ kind: 'over' });
  });

  it('bounds the bytes of 512 messages of 100,000 CJK characters to 8 a budgeted token', () => {
    const messages = Array.from({ length: 512 }, () => user('語'.repeat(100_000)));
    const started = performance.now();
    const fitted = fitContext(bare, messages, 32_000);
    const ms = performance.now() - started;
    if (fitted.kind !== 'fits') throw new Error('over');
    expect(fitted.messages).toHaveLength(1);
    expect(jsonBytes(fitted.messages)).toBeLessThanOrEqual(8 * 32_000);
    // Counting stops at the budget: far from 51 million characters scanned.
    expect(ms).toBeLessThan(500);
  });
});

describe('ConversationModel within its budget', () => {
  const events = (effects: ConversationEffect[]) =>
    effects.filter((e) => e.kind === 'emit').map((e) => (e as { event: ConversationEvent }).event);
  const request = (effects: ConversationEffect[]) =>
    (effects.find((e) => e.kind === 'respond') as { request: ResponseRequest } | undefined)?.request;
  const text = (id: string, chars: number, letter = 'a'): ConversationItem => ({
    id,
    type: 'message',
    role: 'user',
    status: 'completed',
    content: [{ type: 'input_text', text: letter.repeat(chars) }],
  });

  it('refuses an item referenced twice in response.input, naming the entry', () => {
    const model = new ConversationModel('s1', true);
    model.createItem(text('big', 100), undefined);
    const effects = model.createResponse({ conversation: 'none', input: [{ reference: 'big' }, { reference: 'big' }] });
    expect(request(effects)).toBeUndefined();
    expect(events(effects)).toMatchObject([
      { type: 'error', error: { code: 'invalid_value', param: 'response.input[1].id' } },
    ]);
  });

  it("sends the engine only the newest items that fit the budget, the response's instructions counted", () => {
    const model = new ConversationModel('s1', true, { contextTokens: 1000, retainedChars: 1_000_000 });
    for (let i = 0; i < 10; i++) model.createItem(text(`i${i}`, 1200), undefined);
    const sent = request(model.createResponse({ conversation: 'auto', instructions: 'x'.repeat(400) }))!;
    // 1000 − 100 for the instructions leaves room for two items of 300 + 4 tokens.
    expect(sent.messages).toHaveLength(2);
    expect(sent.messages.every((m) => m.content.length === 1200)).toBe(true);
  });

  it('fails a response whose instructions alone are over the budget, with an error naming it', () => {
    const model = new ConversationModel('s1', true, { contextTokens: 1000, retainedChars: 1_000_000 });
    const effects = model.createResponse({ conversation: 'auto', instructions: '語'.repeat(2000) });
    expect(request(effects)).toBeUndefined();
    expect(events(effects)).toMatchObject([
      { type: 'response_created' },
      { type: 'error', error: { code: 'context_budget_exceeded' } },
      { type: 'response_done', response: { status: 'failed', reason: 'context_budget_exceeded' } },
    ]);
    expect(model.responding).toBe(false);
  });

  it("refuses a client's item past what the session keeps, and takes one again once items are deleted", () => {
    const model = new ConversationModel('s1', true, { contextTokens: 32_000, retainedChars: 10_000 });
    model.createItem(text('a', 6000), undefined);
    expect(events(model.createItem(text('b', 6000), undefined))).toMatchObject([
      { type: 'error', error: { code: 'conversation_too_large', param: 'item' } },
    ]);
    expect(model.items.has('b')).toBe(false);
    model.deleteItem('a');
    expect(events(model.createItem(text('b', 6000), undefined))[0]).toMatchObject({ type: 'item_added' });
    expect(model.items.retained()).toBe(6000);
  });

  it('takes an empty item when answers grown in place put the session past its bound, and evicts then', () => {
    const model = new ConversationModel('s1', true, { contextTokens: 32_000, retainedChars: 10_000 });
    model.createItem(text('a', 9000), undefined);
    (model.items.get('a') as Extract<ConversationItem, { type: 'message' }>).content.push({
      type: 'input_text',
      text: 'x'.repeat(2000),
    });
    const silent: ConversationItem = {
      id: '',
      type: 'message',
      role: 'user',
      status: 'completed',
      content: [{ type: 'input_audio', transcript: null }],
    };
    expect(events(model.createItem(silent, undefined))[0]).toMatchObject({ type: 'item_added' });
    // Its insert put the rest back within the bound: the oldest went.
    expect(model.items.has('a')).toBe(false);
    expect(model.items.retained()).toBeLessThanOrEqual(10_000);
  });

  it('pushes the oldest items out when what the session adds itself passes the bound', () => {
    const model = new ConversationModel('s1', true, { contextTokens: 32_000, retainedChars: 10_000 });
    model.createItem(text('a', 4000), undefined);
    model.createItem(text('b', 4000), undefined);
    model.items.insert(text('heard', 4000));
    expect(model.items.all().map((item) => item.id)).toEqual(['b', 'heard']);
  });
});
