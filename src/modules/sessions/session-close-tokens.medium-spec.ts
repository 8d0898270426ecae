import { databaseTargets } from '../../../test/support/test-database';
import type { MediumModule } from '../../../test/support/medium';
import { sessionsMedium } from '../../../test/support/sessions-medium';
import { insertProject } from '../../../test/support/medium-fixtures';
import { newSessionId } from './session-id';
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
 * The sessions module records a conversation's token totals with its close, and shows them as
 * `usage.tokens` in get and list: a detail beside the billed frames, null when none were reported.
 */
describe.each(databaseTargets())('session close with token totals on %s', (target) => {
  let t: MediumModule;
  let sessions: SessionsService;
  let principal: { kind: 'api_key'; projectId: string; apiKeyId: string };

  beforeAll(async () => {
    t = await sessionsMedium(target);
    sessions = t.get(SessionsService);
    const { projectId, keyId } = await insertProject(t.dataSource);
    principal = { kind: 'api_key', projectId, apiKeyId: keyId };
  });
  afterAll(() => t?.close());

  const activeSession = async (): Promise<string> => {
    const id = newSessionId();
    await t.dataSource.query(
      `INSERT INTO sessions (id, project_id, type, model, status, pool, region, started_at, audio, frames, cost_micros)
       VALUES ($1, $2, 'live', 'vendor-voicechat', 'active', 'default', 'local', now(), $3, 25, 2000)`,
      [id, principal.projectId, JSON.stringify(AUDIO)],
    );
    return id;
  };

  it('keeps the totals given at close (past 2^31 too) beside the frames, in get and list alike', async () => {
    const id = await activeSession();
    expect((await sessions.get(principal, id)).usage.tokens).toBeNull();
    const tokens = { inputTokens: 5_000_000_123, outputTokens: 7 };
    expect(await sessions.markClosed(id, 'close_requested', new Date(), tokens)).toBe(true);
    const shown = await sessions.get(principal, id);
    expect(shown).toMatchObject({ status: 'closed', close_reason: 'close_requested' });
    expect(shown.usage).toEqual({
      frames: 25,
      seconds: 2,
      cost_usd: '0.002000',
      tokens: { input_tokens: 5_000_000_123, output_tokens: 7 },
    });
    const listed = (await sessions.list(principal, { limit: 100 })).data.find((s) => s.id === id);
    expect(listed?.usage).toEqual(shown.usage);
    // A second close of the same session changes nothing (the first one's totals stay).
    expect(await sessions.markClosed(id, 'connection_lost', new Date(), { inputTokens: 1, outputTokens: 1 })).toBe(
      false,
    );
    expect((await sessions.get(principal, id)).usage.tokens).toEqual({ input_tokens: 5_000_000_123, output_tokens: 7 });
  });

  it('shows null for a session closed without totals (not a conversation, or none reported)', async () => {
    for (const tokens of [undefined, null]) {
      const id = await activeSession();
      expect(await sessions.markClosed(id, 'expired', undefined, tokens)).toBe(true);
      const row = (await t.dataSource.query(`SELECT input_tokens, output_tokens FROM sessions WHERE id = $1`, [id]))[0];
      expect(row).toEqual({ input_tokens: null, output_tokens: null });
      expect((await sessions.get(principal, id)).usage.tokens).toBeNull();
    }
  });
});
