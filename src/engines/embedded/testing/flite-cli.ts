import { phonesFromSegments, type PhoneSegment } from '../output/word-timing';

/**
 * Parses the flite CLI's `-psdur` line, `pau:0.119 hh:0.212 ax:0.261 …` (end times in seconds): the
 * reference the addon's speech is checked against, and a compact way to write phones in a test.
 */
export function parsePhoneDurations(output: string): PhoneSegment[] {
  const segments = [];
  for (const token of output.trim().split(/\s+/)) {
    const match = /^([a-z0-9_]+):([0-9.]+)$/.exec(token);
    if (match) segments.push({ name: match[1], endSeconds: Number(match[2]) });
  }
  return phonesFromSegments(segments);
}
