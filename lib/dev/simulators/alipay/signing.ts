/**
 * Alipay's RSA2 signatures as its documents describe them ("自行实现验签", "异步通知验签"): the parameters
 * sorted by name, joined as `name=value` with `&`, raw (not URL-encoded), empty values left out, signed
 * with SHA256withRSA and base64. A request signs every parameter but `sign`; a notification leaves out
 * `sign_type` too. An answer signs the exact text of its `<method>_response` object.
 */
import { createSign, createVerify } from 'node:crypto';

export function signingString(params: Readonly<Record<string, string>>, exclude: readonly string[]): string {
  return Object.keys(params)
    .filter((name) => !exclude.includes(name) && params[name] !== undefined && params[name] !== '')
    .sort()
    .map((name) => `${name}=${params[name]}`)
    .join('&');
}

export function rsa2Sign(content: string, privateKeyPem: string): string {
  return createSign('RSA-SHA256').update(content, 'utf8').sign(privateKeyPem, 'base64');
}

export function rsa2Verify(content: string, signature: string, publicKeyPem: string): boolean {
  try {
    return createVerify('RSA-SHA256').update(content, 'utf8').verify(publicKeyPem, signature, 'base64');
  } catch {
    return false;
  }
}

/** A key given as PEM or as bare base64 (how Alipay's key tool shows it), as PEM. */
export function pem(key: string, kind: 'PUBLIC KEY' | 'PRIVATE KEY'): string {
  if (key.includes('-----BEGIN')) return key;
  const body = key.replace(/\s+/g, '').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${kind}-----\n${body.trim()}\n-----END ${kind}-----\n`;
}
