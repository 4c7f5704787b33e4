import type { VideoModel } from '../video-model.js';

export interface ModelCatalog {
  list(): Promise<VideoModel[]>;
  /** By `name`, or by `id` (the `model` field accepts both: docs/api-contract.md, "Request forms"). */
  findByNameOrId(value: string): Promise<VideoModel | undefined>;
  findById(id: string): Promise<VideoModel | undefined>;
}
