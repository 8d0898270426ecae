/**
 * The rules a Realtime conversation's `session.update` is held to belong to the socket layer, which
 * the modules do not know; the app provides them here, so that a client secret's configuration is
 * checked by the very code that checks the same configuration sent over the socket.
 */
export const REALTIME_SESSION_CHECK = Symbol('REALTIME_SESSION_CHECK');

/** What a `session.update` with the same session would be answered with, as its `error` words it. */
export interface RealtimeSessionRefusal {
  code: string;
  message: string;
  /** `session.tools[0].name`: the field, as the socket names it. */
  param: string | null;
}

export type RealtimeSessionVerdict =
  /** `shown`: the settings as `session.created` will show them (GA field names, defaults filled in). */
  { ok: true; shown: Record<string, unknown> } | { ok: false; refusal: RealtimeSessionRefusal };

export interface RealtimeSessionCheck {
  /**
   * `session`: a GA `type: "realtime"` session's conversation fields (instructions, tools…), for a
   * conversation on `model` (the model's engine decides whether tools can be called at all).
   */
  check(session: Record<string, unknown>, model: string): RealtimeSessionVerdict;
}
