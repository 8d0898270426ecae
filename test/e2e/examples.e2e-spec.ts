/**
 * Every example in examples/ run as a user runs it: a child process with BASE_URL and API_KEY
 * against the real service (embedded engine, speech spoken by flite). The service serves TLS with
 * a certificate made for the test, because the openai SDK's Realtime client only speaks wss:; the
 * children trust it through NODE_EXTRA_CA_CERTS (node) and CURL_CA_BUNDLE (curl).
 */
import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { encodeWav } from '../../src/platform/audio/wav';
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const EXAMPLES = join(__dirname, '../../examples');
const run = promisify(execFile);

describe('examples/', () => {
  let t: TestApp;
  let dir: string;
  let cert: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'continuum-examples-'));
    cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    // prettier-ignore
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-keyout', key, '-out', cert,
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    ], { stdio: 'ignore' });
    t = await startTestApp(databaseTargets()[0], {
      env: { SPEECH_ENGINE: 'embedded', ENGINE_MAX_STREAMS: '2', TLS_CERT_FILE: cert, TLS_KEY_FILE: key },
    });
    const { apiKey } = await t.newProject();

    const [question, statement] = await fliteUtterances('awb', [
      'what time is it right now',
      'turn off the lights in the kitchen',
    ]);
    // At 24 kHz for the openai clients; at flite's own rate for Deepgram's, which the service resamples.
    const at24k = concatAudio([
      silence(400),
      toSessionAudio(question.clip),
      silence(1600),
      toSessionAudio(statement.clip),
      silence(1600),
    ]);
    writeFileSync(join(dir, 'speech.wav'), encodeWav({ sampleRate: 24_000, samples: at24k }));
    const questionOnly = concatAudio([silence(400), toSessionAudio(question.clip), silence(1600)]);
    writeFileSync(join(dir, 'question.wav'), encodeWav({ sampleRate: 24_000, samples: questionOnly }));
    const rate = question.clip.sampleRate;
    const pause = new Int16Array(rate);
    const native = concatAudio([pause, question.clip.samples, pause, pause]);
    writeFileSync(join(dir, 'speech-native.wav'), encodeWav({ sampleRate: rate, samples: native }));

    env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      BASE_URL: t.baseUrl,
      API_KEY: apiKey,
      NODE_EXTRA_CA_CERTS: cert,
      CURL_CA_BUNDLE: cert,
    };
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const node = async (example: string, extra: Record<string, string> = {}) => {
    const { stdout, stderr } = await run(process.execPath, [join(EXAMPLES, example)], {
      env: { ...env, ...extra },
      timeout: 90_000,
    });
    expect({ example, stderr }).toEqual({ example, stderr: '' }); // no error event, no warning
    return stdout;
  };

  it('live-session.mjs: a spoken question, the persona’s spoken answer, and a requested close', async () => {
    const out = await node('live-session.mjs', { AUDIO_FILE: join(dir, 'question.wav') });
    expect(out).toMatch(/^session sess_\w+ started$/m);
    expect(out).toMatch(/^you: {2}.*time/m);
    expect(out).toMatch(/^aria: It is /m);
    const closed = /^closed: close_requested, ([\d.]+) s billed, ([\d.]+) s of answer audio$/m.exec(out);
    expect(closed).not.toBeNull();
    expect(Number(closed![1])).toBeGreaterThan(1);
    expect(Number(closed![2])).toBeGreaterThan(0.5);
  }, 120_000);

  it('realtime-transcription.mjs: a client secret minted with the SDK, then transcripts over wss', async () => {
    const out = await node('realtime-transcription.mjs', { AUDIO_FILE: join(dir, 'speech.wav') });
    const transcripts = [...out.matchAll(/^transcript: (.*)$/gm)].map((m) => m[1]);
    expect(transcripts.length).toBeGreaterThanOrEqual(2);
    expect(transcripts[0]).toMatch(/time/);
    expect(out).toMatch(/^closed: 1000$/m);
    // The socket's close reaches the client before the session row is written.
    await waitFor(async () => {
      const sessions = (
        await t.app.inject({ method: 'GET', url: '/v1/sessions', headers: { authorization: `Bearer ${env.API_KEY}` } })
      ).json();
      return sessions.data.some((s: any) => s.type === 'transcription' && s.status === 'closed');
    });
  }, 120_000);

  it('deepgram-transcription.mjs: audio at flite’s own rate, final results, Metadata and a clean close', async () => {
    const out = await node('deepgram-transcription.mjs', { AUDIO_FILE: join(dir, 'speech-native.wav') });
    expect(out).toMatch(/^transcript: .*[Tt]ime.*\.$/m);
    expect(out).toMatch(/^session sess_\w+: [\d.]+ s of audio$/m);
    expect(out).toMatch(/^closed: 1000$/m);
  }, 120_000);

  it('token-server.mjs: mints a secret that opens the live socket, and never hands out the API key', async () => {
    const child: ChildProcess = spawn(process.execPath, [join(EXAMPLES, 'token-server.mjs')], {
      env: { ...env, PORT: '0' },
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          const match = /POST (http:\/\/\S+)/.exec(chunk.toString());
          if (match) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`token server exited with ${code}`)));
      });
      expect((await fetch(url.replace('/session', '/other'), { method: 'POST' })).status).toBe(404);
      const res = await fetch(url, { method: 'POST' });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toContain(env.API_KEY);
      const { value, live_url } = JSON.parse(text);
      expect(value).toMatch(/^ek_/);
      const socket = await SocketClient.open(`${live_url}?token=${encodeURIComponent(value)}`, {
        ca: readFileSync(cert),
      });
      socket.send({ type: 'session.start', session: { model: 'vendor-voicechat' } });
      expect((await socket.waitFor('session.started', 30_000)).session.model).toBe('vendor-voicechat');
      socket.send({ type: 'session.close' });
      await socket.waitFor('session.closed');
    } finally {
      child.kill();
    }
  }, 60_000);

  it('docs/examples.md shows token-server.mjs as it is', () => {
    const readme = readFileSync(join(__dirname, '../../docs/examples.md'), 'utf8');
    expect(readme).toContain(`\`\`\`js\n${readFileSync(join(EXAMPLES, 'token-server.mjs'), 'utf8')}\`\`\``);
  });

  it('rest.sh: every REST call with curl', async () => {
    const { stdout } = await run('bash', [join(EXAMPLES, 'rest.sh')], { env, timeout: 60_000 });
    const answers = stdout
      .split(/^# .*$/m)
      .slice(1)
      .map((s) => s.trim());
    const headings = [...stdout.matchAll(/^# (\S+ \S+)/gm)].map((m) => m[1]);
    expect(headings).toEqual([
      'GET /v1/models',
      'GET /v1/project',
      'POST /v1/live/client_secrets',
      'GET /v1/sessions',
      expect.stringMatching(/^GET \/v1\/sessions\/sess_\w+$/),
      expect.stringMatching(/^DELETE \/v1\/sessions\/sess_\w+$/),
      'GET /v1/usage',
      'GET /v1/usage/export',
      'GET /v1/usage/normalized-meter-events',
    ]);
    expect(JSON.parse(answers[0]).object).toBe('list');
    expect(JSON.parse(answers[1]).balance_usd).toEqual(expect.any(String));
    const secret = JSON.parse(answers[2].split('\n')[0]);
    expect(secret.value).toMatch(/^ek_/);
    expect(JSON.parse(answers[4]).id).toBe(secret.session.id);
    expect(answers[5]).toBe('204');
    expect(JSON.parse(answers[6]).group_by).toBe('model');
    expect(JSON.parse(answers[7]).object).toBe('usage.export');
    for (const line of answers[8].split('\n').filter(Boolean)) expect(JSON.parse(line).schema).toMatch(/meter-event/);
  }, 60_000);
});
