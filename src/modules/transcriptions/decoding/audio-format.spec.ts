import { detectContainer } from './audio-format';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('detectContainer', () => {
  it.each([
    ['wav', bytes('RIFF', [0, 0, 0, 0], 'WAVE')],
    ['wav', bytes('RF64', [0, 0, 0, 0], 'WAVE')],
    ['flac', bytes('fLaC', [0, 0, 0, 34])],
    ['ogg', bytes('OggS', [0, 2, 0, 0])],
    ['webm', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f])],
    ['mp4', bytes([0, 0, 0, 0x20], 'ftypM4A ')],
    ['mp3', bytes('ID3', [4, 0, 0, 0])],
    ['mp3', bytes([0xff, 0xfb, 0x90, 0x64])],
  ])('reads %s from its first bytes', (container, head) => {
    expect(detectContainer(head)).toBe(container);
  });

  it.each([
    ['text', bytes('hello world, not audio')],
    ['a RIFF that is not WAVE', bytes('RIFF', [0, 0, 0, 0], 'AVI ')],
    ['an MPEG sync with the reserved layer', bytes([0xff, 0xe0, 0, 0])],
    ['too few bytes', bytes('Og')],
    ['nothing', Buffer.alloc(0)],
  ])('refuses %s', (_what, head) => {
    expect(detectContainer(head)).toBeNull();
  });
});
