/**
 * Model Studio downloads a task's media (`input.media[].url`, `input.audio_url`) before it runs it, and fails
 * the task when one cannot be used. Limits and the failure's shape: docs/providers/model-studio.md,
 * "References"; third parties give them (unconfirmed), so they are kept configurable.
 */
import { referenceFailure } from '../reference-fetch.js';
import type { Reference, ReferenceLimit, ReferenceSettings } from '../reference-fetch.js';

export type ReferenceMedia = 'image' | 'video' | 'audio';

const MB = 1024 * 1024;
export const MODEL_STUDIO_REFERENCE_LIMITS: Readonly<Record<ReferenceMedia, ReferenceLimit>> = {
  image: { maxBytes: 10 * MB, types: ['image/jpeg', 'image/png', 'image/bmp', 'image/webp'] },
  video: { maxBytes: 100 * MB, types: ['video/mp4', 'video/quicktime'] },
  audio: { maxBytes: 15 * MB, types: ['audio/wav', 'audio/mpeg'] },
};

export const DEFAULT_REFERENCE_TIMEOUT_MS = 10_000;

const MEDIA_OF: Readonly<Record<string, ReferenceMedia>> = {
  first_frame: 'image',
  last_frame: 'image',
  reference_image: 'image',
  reference_video: 'video',
  driving_audio: 'audio',
  first_clip: 'video',
};

/** Each media URL of a create body, with its parameter. */
export function referencesOf(body: Record<string, unknown>): Reference<ReferenceMedia>[] {
  const input = (body.input ?? {}) as { media?: { type: string; url: string }[]; audio_url?: string };
  const media = (input.media ?? []).map((item, index) => ({
    param: `input.media[${index}].url`,
    url: item.url,
    media: MEDIA_OF[item.type] ?? 'image',
  }));
  const audio = typeof input.audio_url === 'string' ? [{ param: 'input.audio_url', url: input.audio_url }] : [];
  return [...media, ...audio.map((entry) => ({ ...entry, media: 'audio' as const }))];
}

const WHY = {
  unreachable: 'Failed to download',
  'too-large': 'The file is too large:',
  'wrong-type': 'The file format is not supported:',
} as const;

/** The first unusable reference fails the task with `InvalidParameter` (the words are the simulator's). */
export const checkReferences = (body: Record<string, unknown>, settings: ReferenceSettings<ReferenceMedia>) =>
  referenceFailure(referencesOf(body), settings, ({ reference, problem, detail }) => ({
    code: 'InvalidParameter',
    message: `${WHY[problem]} ${reference.param} ${reference.url} (${detail})`,
  }));
