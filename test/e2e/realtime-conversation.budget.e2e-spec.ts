/**
 * A conversation session cannot make a huge upstream request or hold unbounded items (issue 40): the
 * openai SDK's OpenAIRealtimeWS against the service with the cascade on a chat stand-in that records
 * every request. Default budget (CONVERSATION_CONTEXT_TOKENS 32,000, CONVERSATION_RETAINED_CHARS
 * 1,000,000): a request's body is at most 8 bytes a budgeted token plus its fixed fields.
 */
import { chatBody } from '../../src/engines/cascade/testing/fake-chat-server';
import type { RecordedRequest } from '../../src/engines/cascade/testing/recording-server';
import {
  openaiRealtimeClient,
  startConversationApp,
  type ConversationApp,
  type ConversationEvent,
} from '../support/conversation-app';
import { waitFor } from '../support/wait-for';

const BUDGET_BYTES = 8 * 32_000 + 4096;
const BIG = 100_000;
const bodyBytes = (request: RecordedRequest) => Buffer.byteLength(JSON.stringify(request.body));

describe('the context budget of conversation sessions on /v1/realtime', () => {
  let app: ConversationApp;

  beforeAll(async () => {
    // Room for 520 items in a row, and no audio: neither the control limit nor the idle rule is tested here.
    app = await startConversationApp({ SOCKET_CONTROL_BURST: '2000', SESSION_IDLE_SECONDS: '0' });
    app.chatPlan = () => ({ kind: 'reply', pieces: ['OK.'] });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it('keeps 512 references and a full conversation under the budget, and refuses what would pass it', async () => {
    const { rt, events, next } = await openaiRealtimeClient(app);
    rt.send({
      type: 'session.update',
      session: { type: 'realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } },
    });
    await next('session.updated');
    const create = async (id: string, text: string) => {
      const at = events.length;
      rt.send({
        type: 'conversation.item.create',
        item: { id, type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
      });
      const answer = await waitOne(['conversation.item.added', 'error'], at);
      return answer.type === 'error' ? (answer.error.code as string) : 'added';
    };
    const waitOne = async (types: string[], at: number) => {
      let found: ConversationEvent | undefined;
      await waitFor(async () => (found = events.slice(at).find((e) => types.includes(e.type))) !== undefined, 15_000);
      return found!;
    };
    const respond = async (response: object) => {
      const at = events.length;
      const requests = app.chat.requests.length;
      rt.send({ type: 'response.create', response });
      const answer = await waitOne(['response.done', 'error'], at);
      return { answer, request: app.chat.requests.length > requests ? app.chat.requests.at(-1)! : null };
    };

    // 503 short items, then 9 of 100,000 characters (CJK: 3 UTF-8 bytes each): 512 items, just under
    // the 1,000,000 characters a session keeps; a tenth big one is refused.
    const from = events.length;
    for (let i = 0; i < 503; i++) {
      const item = {
        id: `short_${i}`,
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: `note ${i}` }],
      };
      rt.send({ type: 'conversation.item.create', item } as any);
    }
    await waitFor(async () => events.slice(from).filter((e) => e.type === 'conversation.item.added').length === 503);
    for (let i = 0; i < 9; i++)
      expect(await create(`big_${i}`, (i % 2 ? 'word ' : '語').repeat(BIG / (i % 2 ? 5 : 1)))).toBe('added');
    expect(await create('big_9', '語'.repeat(BIG))).toBe('conversation_too_large');

    // The same item twice: refused, nothing sent upstream.
    const twice = await respond({
      conversation: 'none',
      input: [0, 1].map(() => ({ type: 'item_reference', id: 'big_8' })),
    });
    expect(twice.answer.error).toMatchObject({ code: 'invalid_value', param: 'response.input[1].id' });
    expect(twice.request).toBeNull();
    // 513 entries: the limit named.
    const over = await respond({
      conversation: 'none',
      input: Array.from({ length: 513 }, (_, i) => ({ type: 'item_reference', id: `short_${i}` })),
    });
    expect(over.answer.error).toMatchObject({ code: 'array_above_max_length', param: 'response.input' });

    // 512 distinct references: one request within the budget, the newest item whole in it.
    const ids = [
      ...Array.from({ length: 503 }, (_, i) => `short_${i}`),
      ...Array.from({ length: 9 }, (_, i) => `big_${i}`),
    ];
    const refs = await respond({ conversation: 'none', input: ids.map((id) => ({ type: 'item_reference', id })) });
    expect(refs.answer.type).toBe('response.done');
    expect(bodyBytes(refs.request!)).toBeLessThanOrEqual(BUDGET_BYTES);
    const sent = chatBody(refs.request!).messages;
    expect(sent.at(-1)).toEqual({ role: 'user', content: '語'.repeat(BIG).slice(-sent.at(-1)!.content.length) });
    expect(sent.length).toBeLessThan(512);

    // The whole conversation (auto): within the budget too, newest last.
    const full = await respond({});
    expect(full.answer.response).toMatchObject({ status: 'completed' });
    expect(bodyBytes(full.request!)).toBeLessThanOrEqual(BUDGET_BYTES);
    expect(chatBody(full.request!).messages.length).toBeLessThan(20);

    // Deleting items makes room again.
    const at = events.length;
    rt.send({ type: 'conversation.item.delete', item_id: 'big_0' });
    await next('conversation.item.deleted', at);
    expect(await create('big_9', '語'.repeat(BIG))).toBe('added');
    rt.close();
  }, 120_000);
});
