import { CAPACITY_GATE, ENGINE_REGISTRY } from '../../engines';
import { databaseTargets } from '../../../test/support/test-database';
import { MediumModule, mediumModule } from '../../../test/support/medium';
import { insertProject } from '../../../test/support/medium-fixtures';
import { AuthModule, AuthService } from '../auth';
import { HealthModule } from '../health';
import { ClientSecretsModule } from './client-secrets.module';
import { ClientSecretsService } from './client-secrets.service';
import type { ClientSecretRequestDto } from './dto/client-secret-request.dto';

const TOOL = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/**
 * A realtime (conversation) secret's settings on a real database: checked at issue by the session
 * core's settings rules (those the socket's session.update is held to, with a stand-in engine
 * registry), stored normalized with the secret, handed to the socket once by the redemption, and not kept after it.
 */
describe.each(databaseTargets())('realtime client secrets with settings on %s', (target) => {
  let m: MediumModule;
  let secrets: ClientSecretsService;
  let engineCallsTools = true;

  beforeAll(async () => {
    m = await mediumModule(target, {
      imports: [AuthModule, HealthModule, ClientSecretsModule],
      globals: [
        {
          provide: ENGINE_REGISTRY,
          useValue: { engineFor: () => ({ conversation: { responses: true, tools: engineCallsTools } }) },
        },
        { provide: CAPACITY_GATE, useValue: { check: () => ({ available: true }) } },
      ],
    });
    secrets = m.get(ClientSecretsService);
  });
  afterAll(() => m?.close());
  afterEach(() => {
    engineCallsTools = true;
  });

  const issue = async (session: Record<string, unknown>, endpoint: 'live' | 'realtime' = 'realtime') => {
    const { apiKey } = await insertProject(m.dataSource);
    const key = m
      .get(AuthService)
      .presentApiKey({ headers: { authorization: `Bearer ${apiKey}` }, url: `/v1/${endpoint}/client_secrets` });
    return secrets.create(key, { session } as ClientSecretRequestDto, { host: 'continuum.test' }, endpoint);
  };
  const stored = async (sessionId: string) =>
    (
      (await m.dataSource.query('SELECT realtime_session FROM client_secrets WHERE session_id = $1', [sessionId])) as {
        realtime_session: unknown;
      }[]
    )[0].realtime_session;
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: { code?: string; param?: string; issues?: unknown }) => error,
    );

  it('stores the settings with the secret, echoes them, and hands them over once at redemption', async () => {
    const settings = {
      instructions: 'You are Breeze. Answer briefly.',
      tools: [TOOL],
      tool_choice: { type: 'function', name: 'get_weather' },
      output_modalities: ['text'],
      max_output_tokens: 300,
    };
    const issued = await issue({ type: 'realtime', model: 'vendor-voicechat', ...settings });
    expect(issued.session).toMatchObject({ object: 'realtime.session', type: 'live', ...settings });
    // Normalized once, as the session core runs them: never parsed again.
    const normalized = {
      version: 1,
      settings: {
        instructions: settings.instructions,
        tools: [{ name: TOOL.name, description: TOOL.description, parameters: TOOL.parameters }],
        toolChoice: { name: 'get_weather' },
        audio: false,
        maxOutputTokens: 300,
      },
    };
    expect(await stored(issued.session.id)).toEqual(normalized);

    const opened = await secrets.redeem(issued.value);
    expect(opened.realtimeSession).toEqual(normalized);
    // Single use: the settings now live on the socket only.
    expect(await stored(issued.session.id)).toBeNull();
    await expect(secrets.redeem(issued.value)).rejects.toMatchObject({ code: 'client_secret_used' });
  });

  it('stores nothing for a realtime secret without settings, and shows the defaults', async () => {
    const issued = await issue({ type: 'realtime' });
    expect(issued.session).toMatchObject({
      instructions: '',
      tools: [],
      tool_choice: 'auto',
      output_modalities: ['audio'],
      max_output_tokens: 'inf',
    });
    expect(await stored(issued.session.id)).toBeNull();
    expect((await secrets.redeem(issued.value)).realtimeSession).toBeNull();
  });

  it("refuses what the socket's session.update refuses, at the field, and issues nothing", async () => {
    const bad = await failure(issue({ type: 'realtime', tools: [{ ...TOOL, name: 'get weather!' }] }));
    expect(bad).toMatchObject({
      issues: [{ loc: ['body', 'session', 'tools', 0, 'name'], type: 'invalid_value' }],
    });
    expect(await failure(issue({ type: 'realtime', instructions: 7 }))).toMatchObject({
      issues: [{ loc: ['body', 'session', 'instructions'], type: 'invalid_type' }],
    });
    expect(await failure(issue({ type: 'realtime', instructions: 'x'.repeat(100_001) }))).toMatchObject({
      issues: [{ loc: ['body', 'session', 'instructions'], type: 'string_above_max_length' }],
    });
    expect(await failure(issue({ type: 'realtime', output_modalities: ['audio', 'text'] }))).toMatchObject({
      issues: [{ loc: ['body', 'session', 'output_modalities'], type: 'invalid_value' }],
    });
    // Well formed but not served: a 400 naming the field.
    expect(await failure(issue({ type: 'realtime', prompt: { id: 'pmpt_1' } }))).toMatchObject({
      code: 'invalid_parameter',
      param: 'session.prompt',
    });
    const [{ n }]: { n: string }[] = await m.dataSource.query(
      `SELECT count(*) AS n FROM client_secrets WHERE realtime_session IS NOT NULL`,
    );
    expect(Number(n)).toBe(0);
  });

  it("refuses tools when the model's engine calls none, as its socket would", async () => {
    engineCallsTools = false;
    expect(await failure(issue({ type: 'realtime', tools: [TOOL] }))).toMatchObject({
      code: 'invalid_parameter',
      param: 'session.tools',
      message: expect.stringContaining('cannot call tools'),
    });
    // Instructions alone are fine there.
    await expect(issue({ type: 'realtime', instructions: 'Hi.' })).resolves.toBeDefined();
  });

  it('refuses settings on sessions that are not conversations', async () => {
    expect(await failure(issue({ type: 'transcription', instructions: 'Hi.' }))).toMatchObject({
      code: 'invalid_parameter',
      param: 'session.instructions',
    });
    expect(await failure(issue({ type: 'live', tools: [TOOL] }, 'live'))).toMatchObject({
      code: 'invalid_parameter',
      param: 'session.tools',
    });
  });
});
