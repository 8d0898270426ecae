import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type BrowserContext } from 'playwright-core';
import { encodeWav } from '../../src/platform/audio/wav';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Debian's Chromium, headless, with a fresh profile and a fake microphone that plays `microphone`
 * (24 kHz pcm16, looped by Chromium) through the real capture path (getUserMedia, AudioWorklet).
 */
export async function launchChromium(microphone: Int16Array): Promise<Browser> {
  const dir = mkdtempSync(join(tmpdir(), 'continuum-chromium-'));
  const wav = join(dir, 'microphone.wav');
  writeFileSync(wav, encodeWav({ sampleRate: 24_000, samples: microphone }));
  const context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${wav}`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Builds the page from the current sources (what `npm run build` does after `nest build`). */
export async function buildPlayground(): Promise<void> {
  await promisify(execFile)(process.execPath, [join(__dirname, '..', '..', 'scripts', 'build-playground.mjs')]);
}

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}
