/**
 * A multipart/form-data body (RFC 7578) read whole from the event (API Gateway hands it base64-encoded), as the
 * official SDK writes one: text fields and file parts, each name once. The body is already bounded by the
 * route; the parts are bounded here. Anything malformed is a 400, never a 500.
 */
import { InvalidRequestError } from '../../core/api-error.js';
import type { FormFile } from '../../core/openai-create-request.js';

const MAX_PARTS = 16;
const MAX_FIELD_BYTES = 64 * 1024;
const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');

export interface MultipartForm {
  fields: Record<string, string>;
  files: Record<string, FormFile>;
}

export function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

export function parseMultipartForm(body: Buffer, contentType: string): MultipartForm {
  const boundary = boundaryOf(contentType);
  if (!boundary) throw malformed('its Content-Type names no boundary');
  const delimiter = Buffer.from(`--${boundary}`);
  const form: MultipartForm = { fields: {}, files: {} };
  let at = body.indexOf(delimiter);
  if (at < 0) throw malformed('no part starts with its boundary');
  for (let parts = 0; ; parts += 1) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === '--') return form;
    if (parts === MAX_PARTS) throw malformed(`it has more than ${MAX_PARTS} parts`);
    if (!body.subarray(at, at + 2).equals(CRLF)) throw malformed('a boundary is not followed by a line break');
    const headersEnd = body.indexOf(HEADERS_END, at);
    if (headersEnd < 0) throw malformed('a part has no end of its headers');
    const headers = body.subarray(at + 2, headersEnd).toString('utf8');
    const next = body.indexOf(Buffer.concat([CRLF, delimiter]), headersEnd);
    if (next < 0) throw malformed('the last part is not closed by the boundary');
    addPart(form, headers, body.subarray(headersEnd + HEADERS_END.length, next));
    at = next + CRLF.length;
  }
}

function addPart(form: MultipartForm, headerText: string, content: Buffer): void {
  const headers = new Map<string, string>();
  for (const line of headerText.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition') ?? '';
  const name = parameterOf(disposition, 'name');
  if (!/^form-data\s*;/i.test(disposition) || name === undefined) {
    throw malformed('a part has no Content-Disposition: form-data with a name');
  }
  if (Object.hasOwn(form.fields, name) || Object.hasOwn(form.files, name)) {
    throw new InvalidRequestError(`${name} was sent twice: send each field once`);
  }
  const filename = parameterOf(disposition, 'filename');
  if (filename !== undefined) {
    const contentType = headers.get('content-type') ?? 'application/octet-stream';
    form.files[name] = { filename, contentType, bytes: content };
    return;
  }
  if (content.length > MAX_FIELD_BYTES)
    throw new InvalidRequestError(`${name} is longer than ${MAX_FIELD_BYTES} bytes`);
  form.fields[name] = content.toString('utf8');
}

function parameterOf(disposition: string, parameter: string): string | undefined {
  const match = new RegExp(`;\\s*${parameter}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(disposition);
  return match?.[1]?.replace(/\\(.)/g, '$1');
}

function malformed(why: string): InvalidRequestError {
  return new InvalidRequestError(`the multipart/form-data body cannot be read: ${why}`);
}
