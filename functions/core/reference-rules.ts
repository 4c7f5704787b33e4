/**
 * The references of a request against the model's upstream contract (docs/api-contract.md, "References"): which images mode,
 * how many images, videos and audios, and their combinations. Ark refuses a mix of first frame, first +
 * last frame and reference inputs (doc 1520757), so videos and audios come only with reference images.
 */
import { InvalidRequestError } from './api-error.js';
import type { ImageMode } from '../providers/ark/contract.js';
import type { GenerationBody } from './generation-request.js';
import type { VideoModel } from './video-model.js';

const IMAGES_PER_MODE: Readonly<Record<Exclude<ImageMode, 'reference'>, number>> = {
  first_frame: 1,
  first_last_frame: 2,
};

/** Returns the images' mode (absent without images); throws a 400 naming the broken rule. */
export function checkReferences(body: GenerationBody, model: VideoModel): ImageMode | undefined {
  const { upstream, record } = model;
  const fields = body.fieldNames;
  const [images, videos, audios] = [body.imageUrls.length, body.videoUrls.length, body.audioUrls.length];
  const refuse = (why: string) => new InvalidRequestError(`${record.name} ${why}`);

  if (images + videos + audios === 0 && !upstream.textOnly) {
    throw refuse(`is an image-to-video model: send at least one image in ${fields.imageUrls}`);
  }
  if (videos > upstream.maxVideos) throw refuse(limit('video', videos, upstream.maxVideos, fields.videoUrls));
  if (audios > upstream.maxAudios) throw refuse(limit('audio', audios, upstream.maxAudios, fields.audioUrls));
  if (images === 0) {
    // Videos or audios alone are references: `reference` names that mode; the frame modes need images.
    const referenceOnly = body.imageMode === 'reference' && videos + audios > 0;
    if (body.imageMode !== undefined && !referenceOnly) {
      throw new InvalidRequestError(`${fields.imageMode} ${body.imageMode} needs images in ${fields.imageUrls}`);
    }
    if (audios > 0 && videos === 0 && upstream.audioNeedsVisual) {
      throw refuse(`needs an image or a video beside reference audio`);
    }
    return undefined;
  }
  if (upstream.imageModes.length === 0) throw refuse(`does not accept images (text to video only)`);
  const mode = body.imageMode ?? upstream.imageModes[0] ?? 'reference';
  if (!upstream.imageModes.includes(mode)) {
    throw refuse(`does not take ${fields.imageMode} ${mode}: use ${upstream.imageModes.join(', ')}`);
  }
  if (mode === 'reference') {
    const { min, max } = upstream.referenceImages;
    if (images < min || images > max) {
      throw refuse(`takes ${min === max ? max : `${Math.max(min, 1)} to ${max}`} reference images (got ${images})`);
    }
    if (images + videos + audios > upstream.maxReferenceItems) {
      throw refuse(`takes at most ${upstream.maxReferenceItems} reference images, videos and audios in all`);
    }
    return mode;
  }
  if (videos + audios > 0) {
    throw refuse(`takes reference videos and audios only with ${fields.imageMode} reference (got ${mode})`);
  }
  const wanted = IMAGES_PER_MODE[mode];
  if (images !== wanted) {
    const more = laterModes(mode, model);
    const hint = images > wanted && more ? `; for more, send ${fields.imageMode} ${more}` : '';
    throw refuse(`takes ${wanted} image${wanted > 1 ? 's' : ''} in ${fields.imageMode} ${mode} (got ${images})${hint}`);
  }
  return mode;
}

function limit(kind: string, count: number, max: number, field: string): string {
  return max === 0
    ? `does not accept ${kind} references (${field})`
    : `takes at most ${max} ${kind} references (got ${count})`;
}

/** The modes that take more images than `mode`, to name in a message. */
function laterModes(mode: ImageMode, model: VideoModel): string {
  return model.upstream.imageModes.slice(model.upstream.imageModes.indexOf(mode) + 1).join(' or ');
}
