/**
 * The validation pieces the conversation events share. The rules are the session core's settings
 * (session-core/settings): a refusal thrown inside a parser and turned into an OpenAI-shaped `error`
 * at its edge, strict objects, tools and tool choice; this file only adds what items and responses
 * need beyond them.
 */
import { bounded, TEXT_LIMITS } from '../../../../session-core';

export {
  SettingRefusal as Refusal,
  known,
  maxOutputTokens,
  object,
  outputModalities,
  string,
  toolChoice,
  tools,
  toolsRefusal,
} from '../../../../session-core';

/** Instructions, tool descriptions and item text: generous, but bounded. */
export const MAX_TEXT = TEXT_LIMITS.text;

export function integer(value: unknown, param: string, min: number, max: number): number | undefined {
  return bounded(value, param, { min, max, integer: true });
}
