/**
 * H.264 copies made by the TranscodeUpload function (UPLOAD_TRANSCODER): PrepareInputs, which holds the
 * signing key and the tasks table, never decodes an upload itself; it hands the key over and gets the
 * copy's key back (docs/security.md, "Untrusted media").
 */
import type { UploadCopies } from '../../core/ports/task-inputs.js';
import type { LambdaInvoker } from './lambda-invoker.js';

/** What TranscodeUpload takes and answers. */
export interface TranscodeRequest {
  object_key: string;
}
export interface TranscodeResult {
  key: string;
}

export class TranscoderFunction implements Pick<UploadCopies, 'h264Key'> {
  constructor(
    private readonly invoker: LambdaInvoker,
    private readonly functionName: string,
  ) {}

  async h264Key(objectKey: string): Promise<string> {
    const request: TranscodeRequest = { object_key: objectKey };
    const result = (await this.invoker.invoke(this.functionName, request)) as Partial<TranscodeResult> | null;
    if (typeof result?.key !== 'string') throw new Error(`${this.functionName} answered no key`);
    return result.key;
  }
}
