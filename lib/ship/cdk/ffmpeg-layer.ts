/**
 * The layer that puts ffmpeg at /opt/ffmpeg for the transcoding function: by default built from the npm
 * package (lib/ship/build/ffmpeg-binary.ts, x86_64); an operator replaces it with a layer of their own through context
 * `ffmpegLayerArn` (and `ffmpegLayerArchitecture`, x86_64 or arm64). docs/operations.md, "ffmpeg".
 */
import { Architecture, Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { ILayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { FFMPEG_BUILD, FFMPEG_PACKAGE, ffmpegPackageDir } from '../build/ffmpeg-binary.js';
import { SetupError } from '../setup-error.js';

export interface ExternalFfmpegLayer {
  /** A layer version's ARN whose content has the binary at `ffmpeg` (so /opt/ffmpeg). */
  readonly arn: string;
  readonly architecture: 'x86_64' | 'arm64';
}

/** Context `ffmpegLayerArn` / `ffmpegLayerArchitecture`, checked; undefined when no ARN is given. */
export function externalFfmpegLayer(arn: string | undefined, architecture: string | undefined) {
  if (arn === undefined) return undefined;
  if (!/^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:layer:[A-Za-z0-9_-]+:\d+$/.test(arn)) {
    throw new SetupError(
      `context ffmpegLayerArn "${arn}" is not a layer version ARN (arn:<partition>:lambda:<region>:<account>:layer:<name>:<version>)`,
    );
  }
  const arch = architecture ?? 'x86_64';
  if (arch !== 'x86_64' && arch !== 'arm64') {
    throw new SetupError(`context ffmpegLayerArchitecture must be x86_64 or arm64 (the layer's binary), not "${arch}"`);
  }
  return { arn, architecture: arch } satisfies ExternalFfmpegLayer;
}

export function ffmpegLayer(
  scope: Construct,
  external: ExternalFfmpegLayer | undefined,
): { readonly layer: ILayerVersion; readonly architecture: Architecture } {
  if (external) {
    return {
      layer: LayerVersion.fromLayerVersionArn(scope, 'FfmpegLayer', external.arn),
      architecture: external.architecture === 'arm64' ? Architecture.ARM_64 : Architecture.X86_64,
    };
  }
  const layer = new LayerVersion(scope, 'FfmpegLayer', {
    code: Code.fromAsset(ffmpegPackageDir()),
    compatibleArchitectures: [Architecture.X86_64],
    compatibleRuntimes: [Runtime.NODEJS_24_X],
    description: `ffmpeg ${FFMPEG_BUILD} (static build, npm ${FFMPEG_PACKAGE}) at /opt/ffmpeg`,
  });
  return { layer, architecture: Architecture.X86_64 };
}
