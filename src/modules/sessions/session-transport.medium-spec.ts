import { databaseTargets } from '../../../test/support/test-database';
import { MediumModule, mediumModule } from '../../../test/support/medium';
import { insertProject } from '../../../test/support/medium-fixtures';
import { ENGINE_REGISTRY } from '../../engines';
import { newCallId, newSessionId } from './session-id';
import { SessionsModule } from './sessions.module';
import { SessionsService } from './sessions.service';

/**
 * A session shows how its media arrives (`transport`) and, for a call, its call id; GET finds a call
 * by either id, within its own project only.
 */
describe.each(databaseTargets())('session transport and call id on %s', (target) => {
  let t: MediumModule;
  let sessions: SessionsService;
  let principal: { kind: 'api_key'; projectId: string; apiKeyId: string };
  let stranger: { kind: 'api_key'; projectId: string; apiKeyId: string };

  beforeAll(async () => {
    t = await mediumModule(target, {
      imports: [SessionsModule],
      env: { SESSION_REAPER_INTERVAL_SECONDS: '0' },
      globals: [{ provide: ENGINE_REGISTRY, useValue: {} }],
    });
    sessions = t.get(SessionsService);
    const own = await insertProject(t.dataSource);
    principal = { kind: 'api_key', projectId: own.projectId, apiKeyId: own.keyId };
    const other = await insertProject(t.dataSource);
    stranger = { kind: 'api_key', projectId: other.projectId, apiKeyId: other.keyId };
  });
  afterAll(() => t?.close());

  const activeSession = async (): Promise<string> => {
    const id = newSessionId();
    await t.dataSource.query(
      `INSERT INTO sessions (id, project_id, type, model, status, pool, region, started_at, audio)
       VALUES ($1, $2, 'live', 'vendor-voicechat', 'active', 'default', 'local', now(), $3)`,
      [
        id,
        principal.projectId,
        JSON.stringify({ input: { format: { type: 'audio/pcm', rate: 24000 } }, output: null }),
      ],
    );
    return id;
  };

  it('is a websocket session with no call id unless its transport says otherwise', async () => {
    const id = await activeSession();
    expect(await sessions.get(principal, id)).toMatchObject({ transport: 'websocket', call_id: null });
  });

  it('finds a call by its call id and by its session id, and not from another project', async () => {
    const id = await activeSession();
    const callId = newCallId();
    expect(callId).toMatch(/^rtc_[0-9A-Za-z]{24}$/);
    await sessions.recordTransport(id, 'webrtc', callId);
    const byCall = await sessions.get(principal, callId);
    expect(byCall).toMatchObject({ id, transport: 'webrtc', call_id: callId });
    expect(await sessions.get(principal, id)).toEqual(byCall);
    const listed = (await sessions.list(principal, { limit: 100 })).data.find((s) => s.id === id);
    expect(listed).toMatchObject({ transport: 'webrtc', call_id: callId });
    await expect(sessions.get(stranger, callId)).rejects.toMatchObject({ code: 'not_found' });
    await expect(sessions.get(principal, newCallId())).rejects.toMatchObject({ code: 'not_found' });
  });

  it('records a transport without a call id (a batch request)', async () => {
    const id = await activeSession();
    await sessions.recordTransport(id, 'batch');
    expect(await sessions.get(principal, id)).toMatchObject({ transport: 'batch', call_id: null });
  });
});
