import {
  ContinuumApiError,
  createClientSecret,
  createRestClient,
  unwrap,
  type ContinuumRestClient,
} from '../../libs/client/src/index.js';
import { connectWithApiKey } from '../../libs/client/src/node.js';
import { tone } from '../support/audio';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The client's REST layer against the running service: every route through the types generated from
 * the committed OpenAPI document, so a route or field the document and the service disagree on
 * fails here (at run time) or in the type check (at compile time).
 */
describe('@continuum/client REST', () => {
  let t: TestApp;
  let client: ContinuumRestClient;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp(databaseTargets()[0]);
    ({ apiKey } = await t.newProject('client'));
    client = createRestClient({ baseUrl: t.baseUrl, apiKey });
  });
  afterAll(() => t?.close());

  it('lists models and reads the project', async () => {
    const models = await unwrap(client.GET('/v1/models'));
    expect(models.data.map((m) => m.id).sort()).toEqual(['vendor-asr-streaming', 'vendor-voicechat']);
    const voicechat = models.data.find((m) => m.id === 'vendor-voicechat')!;
    expect(voicechat.audio).toMatchObject({ sample_rate: 24000 });
    const project = await unwrap(client.GET('/v1/project'));
    expect(project.object).toBe('project');
    expect(Number(project.balance_usd)).toBeGreaterThan(0);
    expect(project.limits.client_secret_ttl_max_seconds).toBe(600);
  });

  it('mints secrets on both paths, then reads, lists and deletes their sessions', async () => {
    const live = await createClientSecret(client, {
      session: { type: 'live', model: 'vendor-voicechat' },
      metadata: { from: 'client-test' },
      expires_after: { anchor: 'created_at', seconds: 120 },
    });
    expect(live.value).toMatch(/^ek_/);
    expect(live.session.live_url).toBe(`${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`);
    const realtime = await unwrap(
      client.POST('/v1/realtime/client_secrets', { body: { session: { type: 'transcription' } } }),
    );
    expect(realtime.session.model).toBe('vendor-asr-streaming');

    const one = await unwrap(
      client.GET('/v1/sessions/{session_id}', { params: { path: { session_id: live.session.id } } }),
    );
    expect(one).toMatchObject({ id: live.session.id, status: 'pending', metadata: { from: 'client-test' } });
    const page = await unwrap(client.GET('/v1/sessions', { params: { query: { limit: 10, status: 'pending' } } }));
    expect(page.data.map((s) => s.id)).toEqual(expect.arrayContaining([live.session.id, realtime.session.id]));

    const deleted = await client.DELETE('/v1/sessions/{session_id}', {
      params: { path: { session_id: realtime.session.id } },
    });
    expect(deleted.response.status).toBe(204);
    await expect(
      unwrap(client.GET('/v1/sessions/{session_id}', { params: { path: { session_id: realtime.session.id } } })),
    ).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('reads usage: the report, the export and the NDJSON meter events', async () => {
    const session = await connectWithApiKey({ baseUrl: t.baseUrl, apiKey, session: { model: 'vendor-asr-streaming' } });
    session.sendAudio(tone(1000)); // 12.5 frames: 12 leave now, the rest with the close
    session.commit(0);
    const end = await session.close();
    expect(end).toMatchObject({ kind: 'session_closed', reason: 'close_requested', usage: { frames: 13 } });
    const report = await unwrap(client.GET('/v1/usage', { params: { query: { group_by: 'model' } } }));
    expect(report).toMatchObject({ object: 'list', group_by: 'model' });
    const exported = await unwrap(client.GET('/v1/usage/export', { params: { query: { from: 0 } } }));
    expect(exported.object).toBe('usage.export');
    expect(exported.data.find((s) => s.session_id === session.resource!.id)?.frames).toBe(13);
    const events = await client.GET('/v1/usage/normalized-meter-events', { parseAs: 'text' });
    expect(events.response.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const lines = String(events.data)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.filter((e) => e.session_id === session.resource!.id).reduce((n, e) => n + e.frames, 0)).toBe(13);
  });

  it('reads the OpenAPI document without a key', async () => {
    const anonymous = createRestClient({ baseUrl: t.baseUrl });
    const document = await unwrap(anonymous.GET('/v1/openapi.json'));
    expect(Object.keys(document.paths as object)).toContain('/v1/live/client_secrets');
  });

  it('turns refusals into typed errors: bad key, validation, configuration', async () => {
    const stranger = createRestClient({ baseUrl: t.baseUrl, apiKey: 'wk_not_a_real_key' });
    const refused = await unwrap(stranger.GET('/v1/models')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ContinuumApiError);
    expect(refused).toMatchObject({ status: 401, code: 'invalid_api_key' });

    const invalid = await createClientSecret(client, {
      expires_after: { anchor: 'created_at', seconds: 9999 },
    }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 422, code: 'validation_error' });
    expect((invalid as Error).message).toMatch(/expires_after/);

    const unknownModel = await createClientSecret(client, { session: { type: 'live', model: 'nope' } }).catch(
      (e: unknown) => e,
    );
    expect(unknownModel).toMatchObject({ status: 400, code: 'invalid_parameter', param: 'session.model' });
  });

  it('is typed from the document: unknown routes and wrong parameters do not compile', () => {
    const typeChecks = () => {
      // @ts-expect-error no such route in the document
      void client.GET('/v1/nothing');
      // @ts-expect-error the path parameter is required
      void client.GET('/v1/sessions/{session_id}', {});
      // @ts-expect-error group_by takes day or model only
      void client.GET('/v1/usage', { params: { query: { group_by: 'week' } } });
    };
    expect(typeof typeChecks).toBe('function'); // compiled (ts-jest type-checks this file), never sent
  });
});
