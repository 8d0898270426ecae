import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeOutcome, type CloseCause } from '../../../session-core/model/close-causes';
import { SessionMachine } from '../../../session-core/machine/session.machine';
import type { Effect } from '../../../session-core/model/session.effects';
import type { ServerEvent } from '../../../session-core/model/session.events';
import type { SessionConfig } from '../../../session-core/model/session.types';
import { REALTIME_ASYNCAPI, REALTIME_ERROR_CODES } from './realtime.asyncapi';
import { RealtimeRenderer } from './realtime.render';

/**
 * Every `error` the Realtime socket sends is documented (AsyncAPI and docs/api.md), and the first
 * error a client hears at a server-side end is the end's own: LiveKit's OpenAI plugin takes the
 * first error as fatal and would lose the transcripts still to come.
 */
const CONFIG: SessionConfig = {
  type: 'transcription',
  model: 'vendor-asr-streaming',
  voice: null,
  language: 'auto',
  turnDetection: null,
  outputEncoding: 'base64',
};

function renderAll(renderer: RealtimeRenderer, events: readonly ServerEvent[]): Record<string, any>[] {
  return events.flatMap((event) => {
    const out = renderer.render(event);
    if (out === null) return [];
    return (Array.isArray(out) ? out : [out]).map((frame) => JSON.parse(String(frame)));
  });
}

interface ClosingClient {
  append(bytes: Buffer): void;
  commit(): void;
}

/**
 * What the machine emits for a session that starts, hears a frame and is ended by `cause`; what the
 * client sends meanwhile (`duringClosing`) is answered in `late`.
 */
function endedBy(cause: CloseCause, duringClosing: (client: ClosingClient) => void = () => undefined) {
  const machine = new SessionMachine('sess_abc');
  const emitted: ServerEvent[] = [];
  const late: ServerEvent[] = [];
  const keep = (effects: readonly Effect[], into = emitted) => {
    for (const effect of effects) if (effect.kind === 'emit') into.push(effect.event);
  };
  keep(machine.start(CONFIG, undefined, true));
  keep(machine.startSucceeded(1_000));
  keep(machine.appendAudio(Buffer.alloc(3840), 1_000));
  // A broken limit or a fault ends the session through abort(), which says why first (as the runtime does).
  if (cause.kind === 'policy') keep(machine.abort({ code: 'rate_limit_exceeded', message: 'over' }, cause));
  else if (cause.kind === 'internal_error') keep(machine.abort({ code: 'internal_error', message: 'failed' }, cause));
  else keep(machine.close(cause));
  duringClosing({
    append: (bytes) => keep(machine.appendAudio(bytes, 1_100), late),
    commit: () => keep(machine.commit('c1'), late),
  });
  keep(machine.finalized(1_200, { framesSent: 0, framesDropped: 0, warnings: 0 }));
  return { emitted, late };
}

describe('the Realtime socket’s errors', () => {
  const documented: ReadonlySet<string> = new Set(REALTIME_ERROR_CODES);

  it.each(REALTIME_ASYNCAPI.sessionEnds.map((end) => [end.how, end] as const))(
    'documents the error sent when the session ends: %s',
    (_how, end) => {
      const cause = end.cause as CloseCause;
      if (cause.kind === 'start_failed') {
        expect(documented).toContain(cause.code);
        return;
      }
      const frames = renderAll(new RealtimeRenderer('sess_abc'), endedBy(cause).emitted);
      const codes = frames.filter((f) => f.type === 'error').map((f) => f.error.code as string);
      for (const code of codes) {
        expect(documented).toContain(code);
        expect(end.lastMessages).toContain(`\`${code}\``);
      }
      if (closeOutcome(cause).notify && cause.kind !== 'client') expect(codes).not.toEqual([]);
    },
  );

  it('answers audio and client events sent while a deleted session ends with the deletion alone', () => {
    const { emitted, late } = endedBy({ kind: 'deleted' }, (client) => {
      client.append(Buffer.alloc(3840 * 2));
      client.commit();
    });
    const renderer = new RealtimeRenderer('sess_abc');
    expect(renderAll(renderer, late)).toEqual([]);
    const errors = renderAll(renderer, emitted).filter((f) => f.type === 'error');
    expect(errors.map((f) => f.error.code)).toEqual(['session_deleted']);
  });

  it('lists every documented code in docs/api.md’s Realtime section', () => {
    const api = readFileSync(join(__dirname, '../../../../docs/api.md'), 'utf8');
    const section = api.slice(api.indexOf('## Realtime socket'), api.indexOf('## Deepgram socket'));
    const missing = REALTIME_ERROR_CODES.filter((code) => !section.includes(`\`${code}\``));
    expect(missing).toEqual([]);
  });
});
