/** The closed vocabularies of a generation request (docs/api-contract.md, "Defaults and bounds"). */
export const RESOLUTIONS = ['480p', '720p', '1080p', '2k', '4k'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export const RATIOS = ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'] as const;
export type Ratio = (typeof RATIOS)[number];

export const REFERENCE_KINDS = ['image', 'video', 'audio'] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];

/** docs/api-contract.md, "References": at most 9 images, 3 videos, 3 audios. */
export const MAX_REFERENCES: Readonly<Record<ReferenceKind, number>> = { image: 9, video: 3, audio: 3 };

export const MIN_DURATION_SECONDS = 5;
/** docs/api-contract.md, "Defaults and bounds": never above 30, whatever a model declares. */
export const MAX_DURATION_SECONDS = 30;
export const MAX_PROMPT_CODE_POINTS = 20480;
export const MAX_URL_LENGTH = 2048;
