/**
 * The remote transcription engine as a configurable kind:
 *   { "kind": "remote", "protocol": "vllm-realtime", "workers": ["ws://asr:8000/v1/realtime"], … }
 * (settings and defaults in remote-settings.ts). With `"files": {"url": …}` batch requests' files go
 * whole to that OpenAI-compatible transcription upstream (file-upstream-settings.ts).
 */
import type { CredentialRef } from '../registry/config-section';
import { engineKind } from '../registry/engine-kind';
import { RemoteSpeechEngine } from './remote-speech.engine';
import { parseRemoteSettings } from './remote-settings';

export const remoteKind = engineKind({
  kind: 'remote',
  parse: parseRemoteSettings,
  languages: (settings) => settings.languages,
  create(settings, context) {
    // Read per stream (and per file), so a rotated Kubernetes Secret file is picked up without a restart.
    const reader = (ref: CredentialRef | null, key: string) => {
      const read = () => (ref === null ? undefined : context.credential(ref));
      if (ref !== null && read() === undefined)
        throw new Error(`engine ${context.name}: its ${key} (${JSON.stringify(ref)}) is empty or unset`);
      return read;
    };
    return new RemoteSpeechEngine(
      settings,
      reader(settings.apiKey, 'apiKey'),
      context.logger,
      reader(settings.files?.apiKey ?? null, 'files.apiKey'),
    );
  },
});
