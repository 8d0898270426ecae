import { AppError } from '../../platform/errors/app-error';
import { RequestValidationError } from '../../platform/errors/validation-error';
import { CONVERSATION_FIELDS, type RequestedSessionDto } from './dto/requested-session.dto';
import type { RealtimeSessionCheck, RealtimeSessionRefusal } from './realtime-session-check';

/** What a realtime secret stores of its conversation, and what its response shows of it. */
export interface SecretConversation {
  /** The fields as the request gave them (null: none given), re-read as a `session.update` at redemption. */
  stored: Record<string, unknown> | null;
  /** The settings as `session.created` will show them. */
  shown: Record<string, unknown>;
}

/** The conversation fields the request gave, in a plain object (the DTO is a class instance). */
export function conversationFields(session: RequestedSessionDto | undefined): Record<string, unknown> {
  const given: Record<string, unknown> = {};
  for (const field of CONVERSATION_FIELDS) if (session?.[field] !== undefined) given[field] = session[field];
  return given;
}

/** Conversation fields on a session that is not a Realtime conversation: it could not apply them. */
export function refuseConversationFields(session: RequestedSessionDto | undefined): void {
  const [field] = Object.keys(conversationFields(session));
  if (field === undefined) return;
  throw new AppError(
    'invalid_parameter',
    `session.${field} configures a conversation: send it with session.type "realtime" to POST /v1/realtime/client_secrets`,
    { param: `session.${field}` },
  );
}

/**
 * A realtime secret's conversation, checked by the socket's own rules (RealtimeSessionCheck): a value
 * the rules refuse as malformed is a 422 at its field; one that is well formed but not served (a tool
 * for an engine that calls none, a stored prompt) is a 400 invalid_parameter, as the contract has it.
 */
export function secretConversation(
  session: RequestedSessionDto,
  model: string,
  check: RealtimeSessionCheck,
): SecretConversation {
  const given = conversationFields(session);
  const verdict = check.check(given, model);
  if (!verdict.ok) throw refusalError(verdict.refusal);
  return { stored: Object.keys(given).length === 0 ? null : given, shown: verdict.shown };
}

function refusalError({ code, message, param }: RealtimeSessionRefusal): Error {
  if (code === 'unsupported_parameter') return new AppError('invalid_parameter', message, { param });
  return new RequestValidationError([{ loc: ['body', ...locOf(param ?? 'session')], msg: message, type: code }]);
}

/** `session.tools[0].name` → `['session', 'tools', 0, 'name']`, the 422's loc. */
export function locOf(param: string): (string | number)[] {
  return param
    .split(/\.|(?=\[)/)
    .map((part) => (/^\[\d+\]$/.test(part) ? Number(part.slice(1, -1)) : part))
    .filter((part) => part !== '');
}
