/**
 * Plays one fuzz script (socket-fuzz-scripts.ts) against a running app, over a real socket, and
 * records what the client saw: every text frame, the close code and reason, the session's id (from
 * the secret, `session.created`/`session.started`, or Deepgram's `dg-request-id` upgrade header)
 * and how many frames it sent.
 */
import WebSocket from 'ws';
import { tone } from './audio';
import { DIALECT_SHAPES, type DialectShape, type Script } from './socket-fuzz-scripts';
import type { TestApp } from './test-app';

export interface Played {
  readonly script: Script;
  sessionIds: string[];
  /** Frames the client sent (every control message, audio chunk and binary frame). */
  sent: number;
  events: Record<string, any>[];
  closeCode: number | null;
  closeReason: string;
  /** A handshake refusal (status and error code), instead of a socket. */
  refusal: { status: number; code: string } | null;
  /** A burst past the control limit was sent to an open socket: it must end in a policy close. */
  overLimitBurst: boolean;
  /** How long the socket took to close after a burst past the limit (ms), or null. */
  closedAfterBurstMs: number | null;
  reconnectRefusal: { status: number; code: string } | null;
}

export interface PlayContext {
  readonly t: TestApp;
  readonly apiKey: string;
  readonly controlBurst: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class FuzzSocket {
  events: Record<string, any>[] = [];
  closeCode: number | null = null;
  closeReason = '';
  requestId: string | null = null;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) return;
      const event = JSON.parse(data.toString()) as Record<string, any>;
      // A conversation echoes its items (tens of KB each): kept by type only, so a run's clients do not
      // weigh on the heap the run measures. Errors and session events are small and kept whole.
      this.events.push(data.length > 4096 ? { type: event.type, event_id: event.event_id } : event);
    });
    ws.on('close', (code, reason) => {
      this.closeCode = code;
      this.closeReason = reason.toString();
    });
    ws.on('error', () => undefined); // a write to a dropped socket: the close says it all
    ws.on('upgrade', (res) => {
      const id = res.headers['dg-request-id'];
      if (typeof id === 'string') this.requestId = id;
    });
  }

  static open(url: string, options: WebSocket.ClientOptions, protocols: string[] = []) {
    const socket = new FuzzSocket(new WebSocket(url, protocols, options));
    return new Promise<FuzzSocket | { status: number; code: string }>((resolve, reject) => {
      socket.ws.once('open', () => resolve(socket));
      socket.ws.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          const body = text ? (JSON.parse(text) as { error?: { code?: string } }) : {};
          resolve({ status: res.statusCode ?? 0, code: body.error?.code ?? '' });
        });
      });
      socket.ws.once('error', reject);
    });
  }

  send(data: string | Buffer, binary = false): boolean {
    if (this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(data, { binary });
    return true;
  }

  async closed(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.closeCode === null && Date.now() < deadline) await sleep(20);
    return this.closeCode !== null;
  }
}

interface Credential {
  url: string;
  options: WebSocket.ClientOptions;
  protocols: string[];
  sessionId: string | null;
}

async function credentialFor(script: Script, ctx: PlayContext, wsBase: string): Promise<Credential> {
  const shape = DIALECT_SHAPES[script.dialect];
  const url = `${wsBase}${shape.path}`;
  if (script.credential === 'api_key' || shape.secretPath === undefined) {
    return { url, options: { headers: { authorization: `Bearer ${ctx.apiKey}` } }, protocols: [], sessionId: null };
  }
  // Live secrets are asked for the model the live start names, so that the start repeats the lock.
  const payload = script.dialect === 'live' ? { session: { type: 'transcription' } } : {};
  const res = await ctx.t.app.inject({
    method: 'POST',
    url: shape.secretPath,
    payload,
    headers: { authorization: `Bearer ${ctx.apiKey}` },
  });
  if (res.statusCode !== 200) throw new Error(`client secret refused: ${res.statusCode} ${res.body}`);
  const secret = res.json() as { value: string; session: { id: string } };
  return script.dialect === 'live'
    ? {
        url: `${url}?token=${encodeURIComponent(secret.value)}`,
        options: {},
        protocols: [],
        sessionId: secret.session.id,
      }
    : {
        url,
        options: {},
        protocols: ['realtime', `openai-insecure-api-key.${secret.value}`],
        sessionId: secret.session.id,
      };
}

/** The dialect's end message (CloseStream, say, with or without odd fields): the session is ending. */
function asksToEnd(shape: DialectShape, text: string): boolean {
  if (!shape.end) return false;
  try {
    const value = JSON.parse(text) as { type?: unknown } | null;
    return (
      typeof value === 'object' && value !== null && value.type === (JSON.parse(shape.end) as { type: string }).type
    );
  } catch {
    return false;
  }
}

function sessionIdsSeen(socket: FuzzSocket): string[] {
  const ids = socket.events
    .filter((e) => e.type === 'session.created' || e.type === 'session.started')
    .map((e) => (e.session as { id?: string } | undefined)?.id)
    .filter((id): id is string => typeof id === 'string');
  if (socket.requestId !== null) ids.push(socket.requestId);
  return ids;
}

export async function play(script: Script, ctx: PlayContext): Promise<Played> {
  const shape = DIALECT_SHAPES[script.dialect];
  const wsBase = ctx.t.baseUrl.replace('http', 'ws');
  const credential = await credentialFor(script, ctx, wsBase);
  const played: Played = {
    script,
    sessionIds: credential.sessionId === null ? [] : [credential.sessionId],
    sent: 0,
    events: [],
    closeCode: null,
    closeReason: '',
    refusal: null,
    overLimitBurst: false,
    closedAfterBurstMs: null,
    reconnectRefusal: null,
  };
  const opened = await FuzzSocket.open(credential.url, credential.options, credential.protocols);
  if (!(opened instanceof FuzzSocket)) {
    played.refusal = opened;
    return played;
  }
  const socket = opened;
  const send = (data: string | Buffer, binary = false) => {
    if (socket.send(data, binary)) played.sent++;
  };
  if (shape.start !== undefined) send(shape.start);
  /** The client already sent the dialect's end: a burst after it may meet a session that is closing. */
  let endAsked = false;
  if (script.ending === 'mid_start') {
    socket.ws.terminate();
  } else {
    for (const step of script.steps) {
      if (socket.closeCode !== null) break;
      switch (step.kind) {
        case 'control':
        case 'invalid':
          send(step.text);
          endAsked ||= asksToEnd(shape, step.text);
          break;
        case 'audio': {
          const { data, binary } = shape.audio(tone(step.ms, 300 + step.ms));
          send(data, binary);
          break;
        }
        case 'binary':
          send(step.bytes, true);
          endAsked ||= step.bytes.length === 0 && shape.emptyBinaryEnds === true;
          break;
        case 'burst': {
          for (let i = 0; i < step.count; i++) send(step.text);
          if (step.count > ctx.controlBurst && socket.ws.readyState === WebSocket.OPEN && !endAsked) {
            played.overLimitBurst = true;
            const at = Date.now();
            // A burst past the limit ends the socket: wait for it, so the ending below cannot hide it.
            if (await socket.closed(5000)) played.closedAfterBurstMs = Date.now() - at;
          }
          break;
        }
        case 'pause':
          await sleep(step.ms);
          break;
      }
    }
    if (socket.closeCode === null) {
      switch (script.ending) {
        case 'client_close':
          socket.ws.close(1000);
          break;
        case 'terminate':
          socket.ws.terminate();
          break;
        case 'end_message':
          if (shape.end) send(shape.end);
          else socket.ws.close(1000);
          break;
        case 'silent':
          break; // the idle rule ends it
      }
    }
  }
  if (!(await socket.closed(15_000))) socket.ws.terminate();
  played.events = socket.events;
  played.closeCode = socket.closeCode;
  played.closeReason = socket.closeReason;
  played.sessionIds.push(...sessionIdsSeen(socket).filter((id) => !played.sessionIds.includes(id)));
  if (script.reconnect) {
    const again = await FuzzSocket.open(credential.url, credential.options, credential.protocols);
    if (again instanceof FuzzSocket) {
      // A used secret opens nothing; an API key opens a new session, dropped at once.
      again.ws.close(1000);
      await again.closed(10_000);
      played.sessionIds.push(...sessionIdsSeen(again).filter((id) => !played.sessionIds.includes(id)));
    } else played.reconnectRefusal = again;
  }
  return played;
}
