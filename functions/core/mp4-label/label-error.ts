/**
 * Why a file could not be labelled. Only moov is ever changed, and each failure but a fast-start file cut short
 * after it is found before moov goes out: a file passed through unlabelled is the source byte for byte.
 */
import { namedError } from '../named-error.js';

export type Mp4LabelFailure =
  | 'not-mp4'
  | 'malformed'
  | 'truncated'
  | 'no-moov'
  | 'moov-too-large'
  | 'fragmented'
  | 'offset-overflow'
  | 'unsupported';

export class Mp4LabelError extends namedError('Mp4LabelError') {
  constructor(
    readonly failure: Mp4LabelFailure,
    message: string,
  ) {
    super(`${failure}: ${message}`);
  }
}
