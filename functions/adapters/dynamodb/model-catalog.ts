/** The model catalog, read from its table and kept for a short while in the warm function. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ModelCatalog } from '../../core/ports/model-catalog.js';
import { catalogVideoModel } from '../../providers/registry.js';
import type { VideoModel } from '../../core/video-model.js';
import { logger } from '../runtime/logger.js';
import { scanPages } from './paged-query.js';

export class DynamoDbModelCatalog implements ModelCatalog {
  private cached?: { models: VideoModel[]; until: number };

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly cacheSeconds: number,
    private readonly clock: () => number = Date.now,
    /** Each provider's platform on this stack: a model its platform retired is not offered (core/video-model.ts). */
    private readonly platforms: Readonly<Partial<Record<string, string>>> = {},
  ) {}

  async list(): Promise<VideoModel[]> {
    if (this.cached && this.cached.until > this.clock()) return [...this.cached.models];
    const models = await this.scan();
    this.cached = { models, until: this.clock() + this.cacheSeconds * 1000 };
    return [...models];
  }

  async findByNameOrId(value: string): Promise<VideoModel | undefined> {
    const wanted = value.toLowerCase();
    return (await this.list()).find((model) => model.record.name === wanted || model.record.id === wanted);
  }

  async findById(id: string): Promise<VideoModel | undefined> {
    const wanted = id.toLowerCase();
    return (await this.list()).find((model) => model.record.id === wanted);
  }

  private async scan(): Promise<VideoModel[]> {
    const models: VideoModel[] = [];
    for await (const page of scanPages(this.db, { TableName: this.table })) {
      for (const item of page.Items ?? []) {
        try {
          models.push(catalogVideoModel(item, this.platforms));
        } catch (error) {
          // One bad catalog row must not take the whole API down; it is logged and left out.
          logger.error('skipping invalid model record', { id: item['id'], error: error as Error });
        }
      }
    }
    return models;
  }
}
