import { databaseTargets } from '../../../test/support/test-database';
import { MediumModule, mediumModule } from '../../../test/support/medium';
import { insertProject } from '../../../test/support/medium-fixtures';
import { ENGINE_REGISTRY } from '../../engines';
import { newSessionId } from './session-id';
import { SessionsModule } from './sessions.module';
import { SessionsService } from './sessions.service';
import type { SessionAudioConfig } from './entities/session.entity';

const AUDIO: SessionAudioConfig = {
  input: {
    format: { type: 'audio/pcm', rate: 24000 },
    transcription: { language: 'auto' },
    turn_detection: null,
    noise_reduction: null,
  },
  output: null,
};

/**
 * A conversation's billed text tokens are kept on its session by the meter statement, with its frames
 * and cost, and shown as `usage.tokens` in get and list; null for a session that billed none. A close
 * leaves them as they are.
 */
describe.each(databaseTargets())('session token totals on %s', (target) => {
  let t: MediumModule;
  let sessions: SessionsService;
  let principal: { kind: 'api_key'; projectId: string; apiKeyId: string };

  beforeAll(async () => {
    t = await mediumModule(target, {
      imports: [SessionsModule],
      env: { SESSION_REAPER_INTERVAL_SECONDS: '0' },
      globals: [{ provide: ENGINE_REGISTRY, useValue: {} }],
    });
    sessions = t.get(SessionsService);
    const { projectId, keyId } = await insertProject(t.dataSource);
    principal = { kind: 'api_key', projectId, apiKeyId: keyId };
  });
  afterAll(() => t?.close());

  const activeSession = async (): Promise<string> => {
    const id = newSessionId();
    await t.dataSource.query(
      `INSERT INTO sessions (id, project_id, type, model, status, pool, region, started_at, audio, frames, cost_micros)
       VALUES ($1, $2, 'live', 'vendor-voicechat', 'active', 'default', 'local', now(), $3, 0, 0)`,
      [id, principal.projectId, JSON.stringify(AUDIO)],
    );
    return id;
  };
  /** The meter statement, as MeterEventsRepository sends it: one batch, 100 micro-USD. */
  const meter = (id: string, seq: number, frames: number, input: number, output: number) =>
    t.dataSource.query(
      `SELECT * FROM continuum_record_meter_batches($1::varchar[], $2::varchar[], $3::int[], $4::int[], $5::int[],
                                                    $6::int[], $7::jsonb[])`,
      [[`mev_${id}_${seq}`], [id], [seq], [frames], [input], [output], [JSON.stringify({ 'vendor-voicechat': 100 })]],
    );

  it("sums the batches' tokens (past 2^31 too) beside the frames, in get and list alike; a close keeps them", async () => {
    const id = await activeSession();
    await meter(id, 1, 25, 0, 0);
    expect((await sessions.get(principal, id)).usage.tokens).toBeNull();
    await meter(id, 2, 0, 2_000_000_000, 3);
    await meter(id, 3, 0, 2_000_000_000, 4);
    await meter(id, 3, 0, 2_000_000_000, 4); // a retried batch counts once
    expect(await sessions.markClosed(id, 'close_requested', new Date())).toBe(true);
    const shown = await sessions.get(principal, id);
    expect(shown).toMatchObject({ status: 'closed', close_reason: 'close_requested' });
    expect(shown.usage).toEqual({
      frames: 25,
      seconds: 2,
      cost_usd: '0.000300',
      tokens: { input_tokens: 4_000_000_000, output_tokens: 7 },
    });
    const listed = (await sessions.list(principal, { limit: 100 })).data.find((s) => s.id === id);
    expect(listed?.usage).toEqual(shown.usage);
  });

  it('shows null for a session that billed no tokens', async () => {
    const id = await activeSession();
    await meter(id, 1, 10, 0, 0);
    expect(await sessions.markClosed(id, 'expired')).toBe(true);
    const row = (await t.dataSource.query(`SELECT input_tokens, output_tokens FROM sessions WHERE id = $1`, [id]))[0];
    expect(row).toEqual({ input_tokens: null, output_tokens: null });
    expect((await sessions.get(principal, id)).usage.tokens).toBeNull();
  });
});
