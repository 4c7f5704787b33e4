/**
 * Customer uploads (docs/api-contract.md, "Uploads"): the formats, limits and lifetimes, the `file_url` form a
 * submit names an upload by, and the valibot schemas of POST /api/v1/uploads (the OpenAPI document reads
 * them from here). An upload's bytes go straight to S3; only what is stored is ever trusted.
 */
import * as v from 'valibot';

/** Spec §8: 50 MB, read as MiB (52,428,800 bytes), the larger reading. */
export const MAX_UPLOAD_BYTES = 52_428_800;
/** Spec §8: uploaded material is kept 48 hours. */
export const UPLOAD_RETENTION_SECONDS = 48 * 60 * 60;
/** The presigned PUT: long enough for 50 MB on a slow line, short enough to be useless once leaked. */
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;

export type ReferenceKind = 'image' | 'video' | 'audio';

/** Each accepted media type (docs/api-contract.md, "Uploads") and the reference field it may fill. */
export const UPLOAD_TYPES = {
  'image/jpeg': 'image',
  'image/png': 'image',
  'image/webp': 'image',
  'video/mp4': 'video',
  'video/quicktime': 'video',
  'audio/mpeg': 'audio',
  'audio/wav': 'audio',
} as const satisfies Record<string, ReferenceKind>;
export type UploadContentType = keyof typeof UPLOAD_TYPES;
export const UPLOAD_CONTENT_TYPES = Object.keys(UPLOAD_TYPES) as UploadContentType[];

export function isUploadContentType(type: string): type is UploadContentType {
  return Object.hasOwn(UPLOAD_TYPES, type);
}

/** Names a reading of the bytes may give an accepted format by (an M4V-branded MP4 is `video/x-m4v`). */
const TYPE_ALIASES: Record<string, UploadContentType> = {
  'video/x-m4v': 'video/mp4',
  'audio/x-wav': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
};

/** A type read from a file's bytes, in the accepted formats' names where it is one of them. */
export function canonicalType(type: string): string {
  return TYPE_ALIASES[type] ?? type;
}

/**
 * What a submit names an upload by. Not an http(s) URL: nobody could fetch it, and a scheme of its own can
 * never be mistaken for (or be made to point at) someone else's host, so it is recognised before any address
 * check. The workflow replaces it with a URL the upstream can fetch.
 */
export const FILE_URL_SCHEME = 'upload://';
const FILE_URL = /^upload:\/\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export function fileUrlOf(uploadId: string): string {
  return `${FILE_URL_SCHEME}${uploadId}`;
}

/** The upload id a string names, or undefined when it is no file_url (lowercase ids only, as we make them). */
export function uploadIdOf(url: string): string | undefined {
  return FILE_URL.exec(url)?.[1];
}

/** Any string in our scheme, well-formed or not: such a string is never handed to the address checks. */
export function looksLikeFileUrl(url: string): boolean {
  return url.toLowerCase().startsWith(FILE_URL_SCHEME);
}

/** Where an upload's bytes live; derived files (the H.264 copy) sit beside it and share its lifecycle rule. */
export function uploadObjectKey(accountId: string, uploadId: string): string {
  return `uploads/${encodeURIComponent(accountId)}/${uploadId}`;
}

export function transcodedObjectKey(objectKey: string): string {
  return `${objectKey}.h264.mp4`;
}

/** A copy stored with its real type (`uploads/<account>/<id>.png` for a PNG declared as JPEG). */
export function typedObjectKey(objectKey: string, contentType: string): string {
  const subtype = contentType.split('/')[1] ?? 'bin';
  return `${objectKey}.${subtype.replace(/[^a-z0-9.+-]/g, '')}`;
}

/** One upload as stored (the uploads table). */
export interface UploadRecord {
  upload_id: string;
  account_id: string;
  object_key: string;
  declared_type: UploadContentType;
  declared_size: number;
  created_at: string;
  /** created_at + 48 h: after it the upload is refused, whatever storage still holds. */
  expires_at: string;
  /** Epoch seconds, DynamoDB's TTL attribute (deletion is best effort: expires_at is what is enforced). */
  ttl: number;
}

export const CreateUploadBody = v.object({
  content_type: v.picklist(UPLOAD_CONTENT_TYPES, `content_type must be one of ${UPLOAD_CONTENT_TYPES.join(', ')}`),
  /** The exact byte count of the file: the upload URL accepts that many bytes and no other count. */
  size: v.pipe(
    v.number('size must be a number of bytes'),
    v.integer('size must be a whole number of bytes'),
    v.minValue(1, 'size must be at least 1 byte'),
    v.maxValue(MAX_UPLOAD_BYTES, `size must be at most ${MAX_UPLOAD_BYTES} bytes (50 MB)`),
  ),
});
export type CreateUploadInput = v.InferOutput<typeof CreateUploadBody>;

export const CreateUploadResponse = v.object({
  upload_id: v.pipe(v.string(), v.uuid()),
  /** Presigned: PUT the bytes here with exactly `upload_headers`, within 15 minutes. */
  upload_url: v.pipe(v.string(), v.url()),
  upload_method: v.literal('PUT'),
  upload_headers: v.object({ 'Content-Type': v.picklist(UPLOAD_CONTENT_TYPES), 'Content-Length': v.string() }),
  /** Put this in image_urls / video_urls / audio_urls of a submit. */
  file_url: v.pipe(v.string(), v.startsWith(FILE_URL_SCHEME)),
  /** When the upload stops being usable (48 h after creation). */
  expires_at: v.pipe(v.string(), v.isoTimestamp()),
});
export type CreateUploadResult = v.InferOutput<typeof CreateUploadResponse>;
