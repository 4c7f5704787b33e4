/** In-memory stand-ins for the upload ports, for the use cases' unit tests. */
import type { IdempotencyRecord } from '../../../functions/core/idempotency.js';
import { IdempotencyKeyTakenError, isLive } from '../../../functions/core/idempotency.js';
import type { PreparedReferences, TaskInputsStore, UploadCopies } from '../../../functions/core/ports/task-inputs.js';
import type {
  PresignedUpload,
  StoredObject,
  UploadRepository,
  UploadStorage,
} from '../../../functions/core/ports/uploads.js';
import type { SignedUrl, VideoUrlSigner } from '../../../functions/core/ports/video-storage.js';
import type { UploadRecord } from '../../../functions/core/uploads.js';
import type { InMemoryIdempotency } from '../fakes.js';

export class InMemoryUploads implements UploadRepository {
  readonly uploads = new Map<string, UploadRecord>();
  constructor(private readonly idempotency?: InMemoryIdempotency) {}

  async create(upload: UploadRecord, record?: IdempotencyRecord): Promise<void> {
    if (this.uploads.has(upload.upload_id)) throw new Error(`upload ${upload.upload_id} exists`);
    if (record) {
      const held = this.idempotency?.records.get(record.id);
      if (held && isLive(held, new Date(record.created_at))) throw new IdempotencyKeyTakenError();
      this.idempotency?.records.set(record.id, structuredClone(record));
    }
    this.uploads.set(upload.upload_id, structuredClone(upload));
  }

  async get(uploadId: string): Promise<UploadRecord | undefined> {
    const upload = this.uploads.get(uploadId);
    return upload && structuredClone(upload);
  }
}

/** Objects by key, as storage would report them; presigned URLs name what they were signed for. */
export class FakeUploadStorage implements UploadStorage {
  readonly objects = new Map<string, StoredObject>();

  async presignPut(key: string, contentType: string, size: number, expiresInSeconds: number): Promise<PresignedUpload> {
    return {
      url: `https://bucket.example.com/${key}?type=${encodeURIComponent(contentType)}&size=${size}&ttl=${expiresInSeconds}`,
      method: 'PUT',
      headers: { 'Content-Type': contentType, 'Content-Length': String(size) },
    };
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    this.objects.set(key, { size: bytes.length, sniffedType: contentType });
  }

  async inspect(key: string): Promise<StoredObject | undefined> {
    return this.objects.get(key);
  }
}

export class FakeSigner implements VideoUrlSigner {
  async sign(key: string, now: Date, expiresInSeconds = 86_400): Promise<SignedUrl> {
    const expiresAt = new Date(now.getTime() + expiresInSeconds * 1000).toISOString();
    return { url: `https://cdn.example.com/${key}?until=${expiresAt}`, expiresAt };
  }
}

/** Keys whose video is H.265; `h264Key` gives the transcoded key for those, counting the transcodes. */
export class FakeUploadCopies implements UploadCopies {
  readonly hevc = new Set<string>();
  readonly broken = new Set<string>();
  transcodes = 0;

  /** Real types by key, where they differ from what was declared. */
  readonly types = new Map<string, string>();

  async sniffedType(objectKey: string): Promise<string | undefined> {
    return this.types.get(objectKey);
  }

  async typedKey(objectKey: string, contentType: string): Promise<string> {
    return `${objectKey}.${contentType.split('/')[1]}`;
  }

  async h264Key(objectKey: string): Promise<string> {
    if (this.broken.has(objectKey)) throw new Error('ffmpeg could not transcode the video: Invalid data');
    if (!this.hevc.has(objectKey)) return objectKey;
    this.transcodes += 1;
    return `${objectKey}.h264.mp4`;
  }
}

export class RecordedInputs implements TaskInputsStore {
  readonly recorded = new Map<string, PreparedReferences>();
  async record(taskId: string, references: PreparedReferences): Promise<boolean> {
    this.recorded.set(taskId, references);
    return true;
  }
}
