/**
 * Ark downloads every reference of a job (each `image_url`, `video_url`, `audio_url` item) before it runs
 * it, and fails the job when one cannot be used. Limits and the failure's shape: docs/providers/ark.md,
 * "References"; the formats and sizes are unconfirmed (not in the official pages read), so kept configurable.
 */
import { referenceFailure } from '../reference-fetch.js';
import type { Reference, ReferenceLimit, ReferenceSettings } from '../reference-fetch.js';

export type ReferenceMedia = 'image_url' | 'video_url' | 'audio_url';

const MB = 1024 * 1024;
export const ARK_REFERENCE_LIMITS: Readonly<Record<ReferenceMedia, ReferenceLimit>> = {
  image_url: {
    maxBytes: 30 * MB,
    types: ['image/jpeg', 'image/png', 'image/webp', 'image/bmp', 'image/tiff', 'image/gif'],
  },
  video_url: { maxBytes: 50 * MB, types: ['video/mp4', 'video/quicktime'] },
  audio_url: { maxBytes: 15 * MB, types: ['audio/wav', 'audio/mpeg'] },
};

/** How long one download may take before the job fails (Ark's own limit is undocumented). */
export const DEFAULT_REFERENCE_TIMEOUT_MS = 10_000;

/** A failed task's `error`. */
export interface ReferenceFailure {
  code: string;
  message: string;
}

/** Each reference of a create body, with its place in `content`. */
export function referencesOf(request: Record<string, unknown>): Reference<ReferenceMedia>[] {
  const content = Array.isArray(request.content) ? (request.content as Record<string, unknown>[]) : [];
  return content.flatMap((item, index) => {
    const media = item.type as ReferenceMedia;
    if (!Object.hasOwn(ARK_REFERENCE_LIMITS, media)) return [];
    const url = (item[media] as { url: string }).url;
    return [{ param: `content[${index}].${media}.url`, url, media }];
  });
}

const WHY = {
  unreachable: 'the resource could not be downloaded',
  'too-large': 'the resource is too large',
  'wrong-type': 'the resource is not of a supported format',
} as const;

/**
 * The first unusable reference in `content`'s order fails the job with 400-family
 * `InvalidParameter` naming its parameter (the code of Ark's table; the message's words are the simulator's).
 */
export const checkReferences = (request: Record<string, unknown>, settings: ReferenceSettings<ReferenceMedia>) =>
  referenceFailure(referencesOf(request), settings, ({ reference, problem, detail }): ReferenceFailure => ({
    code: 'InvalidParameter',
    message: `The parameter \`${reference.param}\` specified in the request is not valid: ${WHY[problem]} (${detail}).`,
  }));
