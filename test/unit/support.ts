/** Shared fixtures for the unit tests: the seeded model catalog, a builder for made-up models, error helpers. */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { ApiError, InvalidRequestError } from '../../functions/core/api-error.js';
import { catalogVideoModel } from '../../functions/providers/registry.js';
import type { VideoModel } from '../../functions/core/video-model.js';

interface CatalogFile {
  models: Record<string, unknown>[];
}

const CATALOG_URL = new URL('../../lib/ship/seed/model-catalog.json', import.meta.url);

/** The raw records of lib/ship/seed/model-catalog.json (a fresh copy on every call). */
export function catalogRecords(): Record<string, unknown>[] {
  return (JSON.parse(readFileSync(CATALOG_URL, 'utf8')) as CatalogFile).models;
}

export function catalogRecord(name: string): Record<string, unknown> {
  const record = catalogRecords().find((model) => model.name === name);
  if (!record) throw new Error(`no model ${name} in the catalog`);
  return record;
}

export function catalogModel(name: string): VideoModel {
  return catalogVideoModel(catalogRecord(name));
}

export const PRO = 'seedance-1.5-pro';
export const V2 = 'seedance-2.0';
export const V2_FAST = 'seedance-2.0-fast';
export const LITE_T2V = 'seedance-1.0-lite';
export const LITE = 'seedance-1.0-lite-i2v';

type RecordOverrides = Record<string, unknown> & { pricing?: Record<string, unknown> };

/** A per_second model like seedance-1.5-pro, with the given fields (and pricing fields) replaced. */
export function buildModel(overrides: RecordOverrides = {}): VideoModel {
  const base = catalogRecord(PRO);
  const { pricing, ...rest } = overrides;
  return catalogVideoModel({
    ...base,
    id: '11111111-2222-4333-8444-555555555555',
    name: 'test-model',
    ...rest,
    pricing: { ...(base.pricing as Record<string, unknown>), ...pricing },
  });
}

/** Runs `action` and returns the InvalidRequestError it throws (failing the test otherwise). */
export function invalidRequest(action: () => unknown): InvalidRequestError {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(InvalidRequestError);
  const error = thrown as InvalidRequestError;
  expect(error).toBeInstanceOf(ApiError);
  expect(error.code).toBe(400);
  return error;
}

/** Awaits `promise` and returns what it rejected with (failing the test if it resolved). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}
