import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WaveFile } from 'wavefile';
import { upstreamFile } from './upstream-file';

describe('upstreamFile', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'upstream-file-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names a container by its bytes, whatever the client called it', async () => {
    const path = join(dir, 'upload');
    writeFileSync(path, 'ID3...');
    const file = await upstreamFile({ path, bytes: 6, head: Buffer.from('ID3') }, 'mp3', dir);
    expect(file).toEqual({ path, bytes: 6, contentType: 'audio/mpeg', fileName: 'audio.mp3' });
    expect((await upstreamFile({ path, bytes: 6, head: Buffer.alloc(0) }, 'mp4', dir)).fileName).toBe('audio.m4a');
  });

  it('gives headerless linear16 a WAV header that a WAV reader agrees with', async () => {
    const samples = Int16Array.from({ length: 800 }, (_, i) => Math.round(Math.sin(i / 5) * 8000));
    const path = join(dir, 'upload');
    writeFileSync(path, Buffer.from(samples.buffer));
    const file = await upstreamFile(
      { path, bytes: samples.byteLength, head: Buffer.alloc(0) },
      { sampleRate: 8000, channels: 2 },
      dir,
    );
    expect(file).toMatchObject({ contentType: 'audio/wav', fileName: 'audio.wav', bytes: samples.byteLength + 44 });
    const wav = new WaveFile(readFileSync(file.path));
    const fmt = wav.fmt as { sampleRate: number; numChannels: number; bitsPerSample: number };
    expect(fmt).toMatchObject({ sampleRate: 8000, numChannels: 2, bitsPerSample: 16 });
    expect(Buffer.from((wav.data as { samples: Uint8Array }).samples)).toEqual(Buffer.from(samples.buffer));
  });
});
