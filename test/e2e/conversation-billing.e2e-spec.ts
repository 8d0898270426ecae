/**
 * A conversation's text work costs what it costs, with the official openai SDK against the cascade on
 * a counting chat stand-in: each response's tokens (reported by the upstream, else estimated) are
 * billed, every usage view agrees with what response.done said, response.create has a rate with a
 * clear refusal, and appends of a few samples do not keep an idle session alive.
 */
import { FAKE_USAGE } from '../../src/engines/cascade/testing/fake-chat-server';
import { openaiRealtimeClient, startConversationApp, type ConversationApp } from '../support/conversation-app';
import { fetchTrusting } from '../support/tls-and-words';
import { waitFor } from '../support/wait-for';

const textOnly = (eventId?: string) => ({
  type: 'response.create' as const,
  response: { output_modalities: ['text' as const] },
  ...(eventId === undefined ? {} : { event_id: eventId }),
});

describe('conversation text work: billed, agreed, rate-limited', () => {
  let app: ConversationApp;
  beforeAll(async () => {
    app = await startConversationApp({ CONVERSATION_RESPONSE_BURST: '3', CONVERSATION_RESPONSES_PER_MINUTE: '6' });
  }, 120_000);
  afterAll(() => app?.close());

  const rest = (path: string) =>
    fetchTrusting(app.ca)(`${app.t.baseUrl}${path}`, { headers: { authorization: `Bearer ${app.apiKey}` } }).then(
      async (r) => (path.includes('normalized-meter-events') ? r.text() : r.json()) as Promise<any>,
    );
  const micros = (usd: string) => Math.round(Number(usd) * 1e6);

  it('bills every response, agrees in every view and refuses response.create past its rate', async () => {
    const balanceBefore = micros((await rest('/v1/project')).balance_usd);
    const { rt, events, errors, next } = await openaiRealtimeClient(app);
    const sessionId = (await next('session.created')).session.id as string;
    rt.send({
      type: 'conversation.item.create',
      item: {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'What is the capital of France?' }],
      },
    });
    // One answer with the usage its upstream reports, one from a server that reports none (estimated).
    app.chatPlan = () => ({ kind: 'reply', pieces: ['Paris.'] });
    rt.send(textOnly());
    await waitFor(async () => events.filter((e) => e.type === 'response.done').length === 1, 15_000);
    app.chatPlan = () => ({ kind: 'reply', pieces: ['It is Paris, ', 'on the Seine.'], withoutUsage: true });
    rt.send(textOnly());
    await waitFor(async () => events.filter((e) => e.type === 'response.done').length === 2, 15_000);

    // A client looping on response.create: past the burst (3) each is refused, the session goes on.
    app.chatPlan = () => ({ kind: 'reply', pieces: ['Again.'], delayMs: 50 });
    for (let i = 0; i < 12; i++) rt.send(textOnly(`evt_loop_${i}`));
    await waitFor(async () => errors.filter((e) => e.code === 'rate_limit_exceeded').length >= 10, 15_000);
    await waitFor(async () => events.filter((e) => e.type === 'response.done').length === 3, 15_000);
    const refused = errors.filter((e) => e.code === 'rate_limit_exceeded');
    expect(refused[0].message).toMatch(/more than 3 responses at once or 6 a minute on this session; retry in \d+ s/);
    expect(refused.every((e) => typeof e.event_id === 'string' && e.event_id.startsWith('evt_loop_'))).toBe(true);
    // One upstream request per response that ran, no more.
    const done = events.filter((e) => e.type === 'response.done');
    expect(app.chat.requests).toHaveLength(done.length);

    // In band: what each response.done said is what it was billed.
    const usages = done.map((e) => e.response.usage);
    expect(usages[0]).toMatchObject({
      input_tokens: FAKE_USAGE.prompt_tokens,
      output_tokens: FAKE_USAGE.completion_tokens,
    });
    // Estimated as the context budget counts: 4 ASCII characters a token ("It is Paris, on the Seine.").
    expect(usages[1].output_tokens).toBe(Math.ceil('It is Paris, on the Seine.'.length / 4));
    expect(usages[1].input_tokens).toBeGreaterThan(0);
    const inBand = {
      input_tokens: usages.reduce((n, u) => n + u.input_tokens, 0),
      output_tokens: usages.reduce((n, u) => n + u.output_tokens, 0),
    };
    rt.close();
    await waitFor(async () => (await rest(`/v1/sessions/${sessionId}`)).status === 'closed', 15_000);

    // Priced at the model's prices, shown in the model list.
    const model = (await rest('/v1/models')).data.find((m: { id: string }) => m.id === 'vendor-voicechat');
    expect(model.price).toMatchObject({
      usd_per_million_input_tokens: '1.000000',
      usd_per_million_output_tokens: '4.000000',
    });
    const session = await rest(`/v1/sessions/${sessionId}`);
    expect(session.usage.tokens).toEqual(inBand);
    const textCost = inBand.input_tokens * 1 + inBand.output_tokens * 4;
    const frameCost = Math.round((session.usage.frames * 60_000) / 750);
    expect(micros(session.usage.cost_usd)).toBe(textCost + frameCost);
    expect(textCost).toBeGreaterThan(0);

    const exported = (await rest('/v1/usage/export')).data.find(
      (s: { session_id: string }) => s.session_id === sessionId,
    );
    expect(exported).toMatchObject({ frames: session.usage.frames, cost_usd: session.usage.cost_usd, tokens: inBand });
    const bucket = (await rest('/v1/usage?group_by=model')).data.find(
      (b: { bucket: string }) => b.bucket === 'vendor-voicechat',
    );
    expect(bucket).toMatchObject({ ...inBand, cost_usd: session.usage.cost_usd });
    // The meter events (the spec's four fields) are the same batches: their frames sum to the session's.
    const lines = (await rest('/v1/usage/normalized-meter-events'))
      .trim()
      .split('\n')
      .map((line: string) => JSON.parse(line))
      .filter((e: { session_id: string }) => e.session_id === sessionId);
    expect(lines.length).toBeGreaterThanOrEqual(done.length);
    expect(lines.reduce((n: number, e: { frames: number }) => n + e.frames, 0)).toBe(session.usage.frames);
    // The credit balance paid for it.
    expect(balanceBefore - micros((await rest('/v1/project')).balance_usd)).toBe(textCost + frameCost);
  }, 90_000);

  it('bills a response its session’s end cuts while the upstream still streams it', async () => {
    // The upstream sends some of the answer, then nothing: the response is in flight when the session ends.
    const said = ['The capital of France ', 'is Par'];
    app.chatPlan = () => ({ kind: 'stall', pieces: said });
    const inFlight = async () => {
      const client = await openaiRealtimeClient(app);
      const sessionId = (await client.next('session.created')).session.id as string;
      client.rt.send({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Where is Paris?' }] },
      });
      client.rt.send(textOnly());
      const text = () =>
        client.events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta as string] : [])).join('');
      await waitFor(async () => text() === said.join(''), 15_000);
      const closed = new Promise<void>((resolve) => client.rt.socket.once('close', () => resolve()));
      return { ...client, sessionId, closed };
    };
    const outputTokens = Math.ceil(said.join('').length / 4); // as the context budget counts

    // Ended on the server (DELETE): the client hears the response end with what it cost, and pays that.
    const balanceBefore = micros((await rest('/v1/project')).balance_usd);
    const deleted = await inFlight();
    const res = await fetchTrusting(app.ca)(`${app.t.baseUrl}/v1/sessions/${deleted.sessionId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${app.apiKey}` },
    });
    expect(res.status).toBe(204);
    const done = (await deleted.next('response.done')).response;
    expect(done).toMatchObject({ status: 'cancelled', status_details: { reason: 'session_ended' } });
    expect(done.usage.output_tokens).toBe(outputTokens);
    expect(done.usage.input_tokens).toBeGreaterThan(0);
    await deleted.closed;
    const cost = done.usage.input_tokens * 1 + done.usage.output_tokens * 4;
    await waitFor(async () => balanceBefore - micros((await rest('/v1/project')).balance_usd) === cost, 15_000);

    // Ended by its client (a hang-up): nobody hears the response end, and it is billed all the same.
    const hungUp = await inFlight();
    hungUp.rt.close();
    await hungUp.closed;
    await waitFor(async () => (await rest(`/v1/sessions/${hungUp.sessionId}`)).status === 'closed', 15_000);
    const session = await rest(`/v1/sessions/${hungUp.sessionId}`);
    expect(session.usage.tokens).toEqual({ input_tokens: done.usage.input_tokens, output_tokens: outputTokens });
    expect(micros(session.usage.cost_usd)).toBe(cost);
  }, 60_000);
});

describe('the idle rule counts billed audio', () => {
  let app: ConversationApp;
  beforeAll(async () => {
    app = await startConversationApp({ SESSION_IDLE_SECONDS: '2' });
  }, 120_000);
  afterAll(() => app?.close());

  it('ends a session fed one sample every half second (no whole frame) as idle', async () => {
    const { rt, next } = await openaiRealtimeClient(app);
    const sessionId = (await next('session.created')).session.id as string;
    const closed = new Promise<number>((resolve) => rt.socket.once('close', (code: number) => resolve(code)));
    const started = Date.now();
    const feeding = setInterval(() => {
      if (rt.socket.readyState === rt.socket.OPEN) rt.send({ type: 'input_audio_buffer.append', audio: 'AAA=' });
    }, 500);
    try {
      await closed;
    } finally {
      clearInterval(feeding);
    }
    // Closed for idleness (2 s), long before the 120 s limit, though appends never stopped.
    expect(Date.now() - started).toBeLessThan(10_000);
    const rest = fetchTrusting(app.ca);
    await waitFor(async () => {
      const res = await rest(`${app.t.baseUrl}/v1/sessions/${sessionId}`, {
        headers: { authorization: `Bearer ${app.apiKey}` },
      });
      const body = (await res.json()) as { status: string; close_reason: string; usage: { frames: number } };
      return body.status === 'closed' && body.close_reason === 'expired' && body.usage.frames === 1;
    }, 10_000);
  }, 60_000);
});
