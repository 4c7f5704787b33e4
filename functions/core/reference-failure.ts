/**
 * A failed job whose reference the upstream could not use, told in our words: which field and index of the
 * customer's request (`video_urls[0]`, `imageUrls[1]`), what was wrong, what to do. The upstream's words follow
 * in parentheses for operators; the customer's reason leaves them out (workflow-errors.ts).
 */
import type { ReferenceKind } from './generation-options.js';
import type { RequestForm } from './generation-request.js';
import type { JobFailureCause, ReferenceProblem } from './ports/video-provider.js';

type ReferenceCause = Extract<JobFailureCause, { kind: 'reference' }>;

/** The task's references, in the order the provider port counts `position` by. */
export interface TaskReferences {
  imageUrls: readonly string[];
  videoUrls: readonly string[];
  audioUrls: readonly string[];
}

const FIELDS: Readonly<Record<RequestForm, Record<ReferenceKind, string>>> = {
  A: { image: 'image_urls', video: 'video_urls', audio: 'audio_urls' },
  B: { image: 'imageUrls', video: 'videoUrls', audio: 'audioUrls' },
};

const ARTICLE: Readonly<Record<ReferenceKind, string>> = { image: 'an image', video: 'a video', audio: 'an audio' };
/** What each field takes (docs/api-contract.md, "Uploads"): the upstreams take at least these. */
const TYPES: Readonly<Record<ReferenceKind, string>> = {
  image: 'JPEG, PNG or WebP',
  video: 'MP4 or MOV',
  audio: 'MP3 or WAV',
};

/** `video_urls[0]` for the cause, as precisely as the upstream said, and its kind; `a reference` when it did not say. */
export function referenceField(
  cause: ReferenceCause,
  form: RequestForm,
  references: TaskReferences,
): { field: string; kind?: ReferenceKind } {
  const lists: [ReferenceKind, readonly string[]][] = [
    ['image', references.imageUrls],
    ['video', references.videoUrls],
    ['audio', references.audioUrls],
  ];
  if (cause.position !== undefined) {
    let rest = cause.position;
    for (const [kind, urls] of lists) {
      if (rest < urls.length) return { field: `${FIELDS[form][kind]}[${rest}]`, kind };
      rest -= urls.length;
    }
  }
  const { media } = cause;
  if (media === undefined) return { field: 'a reference' };
  const count = lists.find(([kind]) => kind === media)?.[1].length ?? 0;
  return { field: count === 1 ? `${FIELDS[form][media]}[0]` : `one of ${FIELDS[form][media]}`, kind: media };
}

const WHAT: Readonly<Record<ReferenceProblem, (kind: ReferenceKind | undefined) => string>> = {
  unreachable: () =>
    'could not be downloaded by the generator: give a public http(s) URL that answers GET without sign-in, ' +
    'or upload the file (POST /api/v1/uploads)',
  'too-large': (kind) =>
    `is larger than the generator takes for ${kind ? ARTICLE[kind] : 'a reference'}: send a smaller file`,
  'wrong-type': (kind) =>
    kind
      ? `is not ${ARTICLE[kind]} file the generator takes: send ${TYPES[kind]}`
      : 'is not a file type the generator takes for its field',
  unusable: () => 'could not be used by the generator: check the file and its URL',
};

/** The task failed for one of its references; refunded like any failure. Message: the customer's reason. */
export class ReferenceUnusableError extends Error {
  override readonly name = 'ReferenceUnusableError';
  constructor(cause: ReferenceCause, form: RequestForm, references: TaskReferences, upstreamMessage?: string) {
    const { field, kind } = referenceField(cause, form, references);
    const said = upstreamMessage ? ` (upstream: ${upstreamMessage})` : '';
    const subject = field === 'a reference' ? field : `the reference ${field}`;
    super(`${subject} ${WHAT[cause.problem](kind)}; the charge was refunded${said}`);
  }
}
