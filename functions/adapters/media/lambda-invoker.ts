/**
 * Invokes a Lambda function synchronously (Invoke, RequestResponse) with a SigV4-signed fetch and the
 * function's own credentials, as s3-url-signer.ts signs S3: the SDK's Lambda client would add its weight to
 * the caller's bundle. A function error comes back as an Error carrying the invoked function's message.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { readEnv } from '../runtime/config.js';
import { NodeSha256 } from '../storage/s3-url-signer.js';

export class LambdaInvoker {
  private readonly signer: SignatureV4;

  constructor(
    private readonly region: string,
    /** A custom endpoint (the local stack's); absent: the Region's Lambda endpoint. */
    private readonly endpoint: string | undefined,
    private readonly timeoutMs: number,
  ) {
    this.signer = new SignatureV4({
      service: 'lambda',
      region,
      credentials: defaultProvider(),
      sha256: NodeSha256,
      applyChecksum: true,
    });
  }

  async invoke(functionName: string, payload: unknown): Promise<unknown> {
    const suffix = this.region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
    const base = new URL(this.endpoint || `https://lambda.${this.region}.${suffix}`);
    const path = `/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`;
    const body = JSON.stringify(payload);
    const signed = await this.signer.sign({
      method: 'POST',
      protocol: base.protocol,
      hostname: base.hostname,
      ...(base.port ? { port: Number(base.port) } : {}),
      path,
      headers: { host: base.host, 'content-type': 'application/json', 'x-amz-invocation-type': 'RequestResponse' },
      body,
    });
    const response = await fetch(`${base.origin}${path}`, {
      method: 'POST',
      headers: signed.headers,
      body,
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`invoking ${functionName} answered ${response.status}: ${text.slice(0, 300)}`);
    const result = (text === '' ? null : JSON.parse(text)) as unknown;
    if (response.headers.get('x-amz-function-error')) {
      const message = (result as { errorMessage?: unknown } | null)?.errorMessage;
      throw new Error(typeof message === 'string' ? message : `${functionName} failed`);
    }
    return result;
  }
}

export function lambdaInvoker(timeoutMs: number): LambdaInvoker {
  const endpoint = readEnv('lambdaEndpoint') || readEnv('awsEndpoint');
  return new LambdaInvoker(readEnv('region'), endpoint || undefined, timeoutMs);
}
