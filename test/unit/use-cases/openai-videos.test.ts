/**
 * The OpenAI dialect's pure parts (docs/openai-videos.md): sizes named from resolution and ratio, every status
 * mapped, the SDK's multipart body read (and a malformed one refused), the create body's refusals naming the field.
 */
import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../functions/core/api-error.js';
import { parseCreateVideoRequest } from '../../../functions/core/openai-create-request.js';
import type { OpenAiParamError } from '../../../functions/core/openai-error.js';
import { OPENAI_STATUS_OF, sizeOf } from '../../../functions/core/openai-video.js';
import { TASK_STATUSES } from '../../../functions/core/task-status.js';
import { parseMultipartForm } from '../../../functions/http/openai/multipart-form.js';

describe('the OpenAI dialect', () => {
  it('names sizes by the resolution’s lines and the ratio', () => {
    expect(sizeOf('720p', '16:9')).toBe('1280x720');
    expect(sizeOf('720p', '9:16')).toBe('720x1280');
    expect(sizeOf('480p', '16:9')).toBe('854x480');
    expect(sizeOf('1080p', '1:1')).toBe('1080x1080');
    expect(sizeOf('1080p', '21:9')).toBe('2520x1080');
  });

  it('maps every status of ours to one of OpenAI’s', () => {
    for (const status of TASK_STATUSES)
      expect(OPENAI_STATUS_OF[status]).toMatch(/^(queued|in_progress|completed|failed)$/);
  });

  it('reads the form the SDK sends: text fields, a file part, a nested object’s fields', async () => {
    const form = new FormData();
    form.append('model', 'm');
    form.append('prompt', 'a "quoted" prompt\r\nover two lines');
    form.append(
      'input_reference',
      new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'f.png', { type: 'image/png' }),
    );
    const request = new Request('http://x', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    const parsed = parseMultipartForm(body, request.headers.get('content-type') as string);
    expect(parsed.fields).toEqual({ model: 'm', prompt: 'a "quoted" prompt\r\nover two lines' });
    expect(parsed.files['input_reference']).toMatchObject({ filename: 'f.png', contentType: 'image/png' });
    expect([...(parsed.files['input_reference']?.bytes ?? [])]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(
      parseCreateVideoRequest({ model: 'm', prompt: 'p', 'input_reference[image_url]': 'https://a/b.png' }),
    ).toMatchObject({ reference: { kind: 'image_url', url: 'https://a/b.png' } });
  });

  it('refuses a malformed body with a 400, and names the field of a bad one', () => {
    expect(() => parseMultipartForm(Buffer.from('--b\r\nnope'), 'multipart/form-data; boundary=b')).toThrow(
      InvalidRequestError,
    );
    expect(() => parseMultipartForm(Buffer.from(''), 'multipart/form-data')).toThrow(/boundary/);
    const refusal = (body: unknown) => {
      try {
        parseCreateVideoRequest(body);
      } catch (error) {
        return error as OpenAiParamError;
      }
      throw new Error('accepted');
    };
    expect(refusal({ prompt: 'p' }).param).toBe('model');
    expect(refusal({ model: 'm', prompt: 'p', quality: 'hd' }).param).toBe('quality');
    expect(refusal({ model: 'm', prompt: 'p', seconds: 4.5 }).param).toBe('seconds');
    expect(refusal({ model: 'm', prompt: 'p', input_reference: { image_url: 'a', file_id: 'b' } }).param).toBe(
      'input_reference',
    );
  });
});
