/**
 * The implicit label of an MP4 (GB 45438-2025; docs/compliance.md, "The implicit label"): pure functions over
 * bytes and chunks, no I/O, for the video transfer to label each file as it copies it.
 */
export { type AigcLabel, aigcLabel, mergeAigcLabel, parseAigcLabel, serializeAigcLabel } from './aigc-label.js';
export { Mp4LabelError, type Mp4LabelFailure } from './label-error.js';
export { labelMp4, readAigcLabel } from './label-buffer.js';
export { DEFAULT_MAX_MOOV_BYTES, type LabelMp4Options, labelMp4Stream, Mp4Labeller } from './label-stream.js';
export { readAigcLabelFromStream } from './read-label-stream.js';
