/**
 * The one registration point of engine kinds: a new kind is a folder under src/engines/<kind>/
 * exporting an EngineKind (see registry/engine-kind.ts), added to this list.
 */
import { cascadeKind } from '../cascade/cascade.kind';
import { embeddedKind } from '../embedded/embedded.kind';
import { engineKind, type EngineKind } from './engine-kind';
import { remoteKind } from '../remote/remote.kind';
import { scriptedKind } from '../scripted/scripted.kind';

export const ENGINE_KINDS: readonly EngineKind[] = [embeddedKind, scriptedKind, remoteKind, engineKind(cascadeKind)];
