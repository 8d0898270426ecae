/**
 * Fixtures for the usage suites: session rows written directly (the usage module reads the table,
 * it does not own it), meter batches through the real write path, and readers for the three views.
 */
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { SessionAudioConfig } from '../../src/modules/sessions/entities/session.entity';
import type { TestApp } from '../support/test-app';

export const VOICECHAT = 'vendor-voicechat';
export const ASR = 'vendor-asr-streaming';

export interface SessionFixture {
  projectId: string;
  model?: string;
  status?: 'pending' | 'active' | 'closed' | 'expired';
  closeReason?: string | null;
  createdAt?: Date;
  startedAt?: Date | null;
  endedAt?: Date | null;
  heartbeatAt?: Date | null;
  instanceId?: string | null;
  metadata?: Record<string, string>;
}

/** The audio configuration of the session rows these tests write. */
export const AUDIO: SessionAudioConfig = {
  input: {
    format: { type: 'audio/pcm', rate: 24000 },
    transcription: { language: 'auto' },
    turn_detection: null,
    noise_reduction: null,
  },
  output: null,
};

export const newSessionId = (): string => `sess_${randomBytes(12).toString('hex')}`;

export async function insertSession(ds: DataSource, s: SessionFixture): Promise<string> {
  const id = newSessionId();
  const model = s.model ?? VOICECHAT;
  await ds.query(
    `INSERT INTO sessions (id, project_id, type, model, status, pool, region, created_at, started_at, ended_at,
       close_reason, metadata, audio, heartbeat_at, instance_id)
     VALUES ($1, $2, $3, $4, $5, 'default', 'local', $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      id,
      s.projectId,
      model === ASR ? 'transcription' : 'live',
      model,
      s.status ?? 'closed',
      s.createdAt ?? new Date(),
      s.startedAt === undefined ? (s.createdAt ?? new Date()) : s.startedAt,
      s.endedAt ?? null,
      s.closeReason === undefined ? (s.status === 'closed' || !s.status ? 'close_requested' : null) : s.closeReason,
      JSON.stringify(s.metadata ?? {}),
      JSON.stringify(AUDIO),
      s.heartbeatAt ?? null,
      s.instanceId ?? null,
    ],
  );
  return id;
}

/** Moves a recorded batch to another time, to place it in a chosen bucket. */
export async function setRecordedAt(ds: DataSource, sessionId: string, seq: number, at: Date): Promise<void> {
  await ds.query('UPDATE meter_events SET recorded_at = $2 WHERE id = $1', [`mev_${sessionId}_${seq}`, at]);
}

export const utc = (iso: string): Date => new Date(`${iso}Z`);
export const unix = (date: Date): number => Math.floor(date.getTime() / 1000);

export interface Reader {
  get(path: string): Promise<{ statusCode: number; body: string; headers: Record<string, unknown>; json(): any }>;
}

export function reader(t: TestApp, apiKey: string): Reader {
  return {
    get: async (path) => {
      const res = await t.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${apiKey}` } });
      return { statusCode: res.statusCode, body: res.body, headers: res.headers, json: () => res.json() };
    },
  };
}

export interface MeterLine {
  schema: string;
  session_id: string;
  frames: number;
  meter_event_id: string;
}

export function parseNdjson(body: string): MeterLine[] {
  if (body === '') return [];
  expect(body.endsWith('\n')).toBe(true);
  return body
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as MeterLine);
}

export async function sessionTotals(
  ds: DataSource,
  ids: string[],
): Promise<Map<string, { frames: number; cost: number }>> {
  const rows: { id: string; frames: number; cost_micros: string }[] = await ds.query(
    'SELECT id, frames, cost_micros FROM sessions WHERE id = ANY($1)',
    [ids],
  );
  return new Map(rows.map((r) => [r.id, { frames: r.frames, cost: Number(r.cost_micros) }]));
}

export async function balanceMicros(ds: DataSource, projectId: string): Promise<number> {
  const [row] = await ds.query('SELECT balance_micros FROM projects WHERE id = $1', [projectId]);
  return Number(row.balance_micros);
}

/** Micro-dollars from a "12.345678" string (negative allowed). */
export function usdMicros(usd: string): number {
  const negative = usd.startsWith('-');
  const [whole, frac] = usd.replace('-', '').split('.');
  const micros = Number(whole) * 1_000_000 + Number(frac);
  return negative ? -micros : micros;
}
