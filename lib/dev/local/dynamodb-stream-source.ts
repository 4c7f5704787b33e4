/**
 * Lambda's DynamoDB stream event source, locally: reads a table's stream on DynamoDB Local, keeps what the
 * filter pattern matches (equality rules only) and hands batches to the handler in Lambda's record shape,
 * with ReportBatchItemFailures retries (then the batch is passed over, as Lambda does); a throttled invoke (the
 * function at its concurrency) is retried with backoff, never counted as a retry. Starts at LATEST: what was
 * written while the stack was down is the reconciler's.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { Shard, ShardIteratorType, _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { setTimeout as sleep } from 'node:timers/promises';
import { lambdaContext } from './lambda-context.js';
import { isThrottle } from './lambda-concurrency.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../ship/sam-local/local-aws.js';

export type DynamoDbStreamHandler = (
  event: DynamoDBStreamEvent,
  context: Context,
) => Promise<DynamoDBBatchResponse | void>;

/** Lambda filter criteria, equality only: `{ field: [value, ...], nested: { field: [value] } }`. */
export type FilterPattern = { readonly [key: string]: readonly (string | number | boolean)[] | FilterPattern };

const IDLE_POLL_MS = 250;

export interface DynamoDbStreamSourceOptions {
  /** Reaches DynamoDB Local (for the table's stream ARN). */
  dynamoDb: DynamoDBClient;
  /** DynamoDB Local's endpoint: its streams API is served there too. */
  endpoint: string;
  tableName: string;
  /** Resolved on the first batch, so the handler module loads after the environment is set. */
  handler: () => Promise<DynamoDbStreamHandler>;
  functionName: string;
  timeoutMs: number;
  batchSize: number;
  filterPattern: FilterPattern;
  retryAttempts: number;
  /**
   * Pause between reads of a shard that had nothing new. Default 250 ms: Lambda polls each shard of a
   * DynamoDB stream four times a second (AWS Lambda Developer Guide, "Using AWS Lambda with Amazon DynamoDB").
   */
  idlePollMs?: number;
  /** Pause before a failed batch is retried, and the first before a throttled one (doubling to 30×). Default 1 s. */
  retryPauseMs?: number;
  onError?: (error: unknown) => void;
}

export interface DynamoDbStreamSource {
  /**
   * Stops handing records over until resume(), as disabling an event source mapping does; what is written
   * meanwhile is delivered after. Only a batch already in the handler's hands finishes.
   */
  pause(): void;
  resume(): void;
  /** Stops reading and waits for the batch in hand to finish. */
  stop(): Promise<void>;
}

/** Resolves once every open shard is positioned at its end: anything written after this is delivered. */
export async function startDynamoDbStreamSource(options: DynamoDbStreamSourceOptions): Promise<DynamoDbStreamSource> {
  assertEqualityOnly(options.filterPattern);
  const streams = new DynamoDBStreamsClient({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: options.endpoint,
  });
  const { Table } = await options.dynamoDb.send(new DescribeTableCommand({ TableName: options.tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`table ${options.tableName} has no stream`);

  const abort = new AbortController();
  const seen = new Set<string>();
  const readers = new Set<Promise<void>>();
  let handler: Promise<DynamoDbStreamHandler> | undefined;
  const idlePollMs = options.idlePollMs ?? IDLE_POLL_MS;
  const retryPauseMs = options.retryPauseMs ?? 1_000;
  const reportError = options.onError ?? ((error: unknown) => console.error(`${options.functionName}:`, error));

  const iterator = async (shardId: string, type: ShardIteratorType, sequenceNumber?: string) =>
    (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ShardIteratorType: type,
          ...(sequenceNumber && { SequenceNumber: sequenceNumber }),
        }),
      )
    ).ShardIterator;

  const wait = (ms: number) => sleep(ms, undefined, { signal: abort.signal }).catch(() => undefined);
  const aborted = new Promise<void>((resolve) =>
    abort.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  /** Resolved while the source runs; pending while it is paused. */
  let running: Promise<void> = Promise.resolve();
  let resumeReaders: (() => void) | undefined;
  /**
   * Waits until the source runs (or stops); at once unless paused. The race with the long-lived `aborted`
   * happens only while paused: on every pass it would pile up reactions on that promise.
   */
  const untilRunning = async () => {
    if (resumeReaders) await Promise.race([running, aborted]);
  };

  const follow = (shardId: string, first: string | undefined, lastSeen: bigint | undefined) => {
    const reader = readShard(shardId, first, lastSeen);
    readers.add(reader);
    void reader.finally(() => readers.delete(reader));
  };

  /** Every shard of the stream (DescribeStream pages them). */
  const listShards = async () => {
    const shards: Shard[] = [];
    let after: string | undefined;
    do {
      const { StreamDescription } = await streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ...(after && { ExclusiveStartShardId: after }) }),
      );
      shards.push(...(StreamDescription?.Shards ?? []));
      after = StreamDescription?.LastEvaluatedShardId;
    } while (after);
    return shards;
  };

  /**
   * Shards not seen yet: at start, the open ones from their end; later, a closed shard's children from
   * their start. Answers how many it found. "From the end" is found by reading the shard through, not with
   * a LATEST iterator: DynamoDB Local numbers stream records across all its tables, and a LATEST iterator
   * on an empty shard points at the shard's first number, which its first record then lies past
   * (TrimmedDataAccessException).
   */
  const discover = async (from: 'end' | 'start', parentShardId?: string): Promise<number> => {
    let found = 0;
    for (const shard of await listShards()) {
      const shardId = shard.ShardId!;
      if (seen.has(shardId)) continue;
      const open = shard.SequenceNumberRange?.EndingSequenceNumber === undefined;
      // A closed shard hands over to its own children only: each parent's records come before its children's.
      if (parentShardId !== undefined && shard.ParentShardId !== parentShardId) continue;
      seen.add(shardId);
      if (from === 'end' && !open) continue;
      let next = await iterator(shardId, 'TRIM_HORIZON');
      let lastSeen: bigint | undefined;
      while (from === 'end' && next) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: next, Limit: 1000 }));
        if ((page.Records ?? []).length === 0) break;
        lastSeen = BigInt(page.Records!.at(-1)!.dynamodb!.SequenceNumber!);
        next = page.NextShardIterator;
      }
      follow(shardId, next, lastSeen);
      found += 1;
    }
    return found;
  };

  /**
   * Reads one shard until it closes (then hands over to its children) or the source stops. Records numbered
   * up to `lastSeen` were handled already: any re-read (from the shard's start, after an error) skips them.
   * An error never ends the reader: it is reported, and the shard is read again after a pause.
   */
  const readShard = async (shardId: string, first: string | undefined, lastSeen: bigint | undefined) => {
    let next = first;
    let attempts = 0;
    let throttles = 0;
    let failing = false;
    while (!abort.signal.aborted) {
      await untilRunning();
      if (abort.signal.aborted) return;
      try {
        if (!next) {
          // The shard has closed: its children are listed once DynamoDB has made them.
          if ((await discover('start', shardId)) > 0) return;
          await wait(retryPauseMs);
          continue;
        }
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: next, Limit: options.batchSize }), {
          abortSignal: abort.signal,
        });
        failing = false;
        const records = (page.Records ?? [])
          .filter((record) => lastSeen === undefined || BigInt(record.dynamodb!.SequenceNumber!) > lastSeen)
          .map((record) => lambdaRecord(record, streamArn));
        const matching = records.filter((record) => matches(options.filterPattern, record));
        // A read that was under way when the source paused holds its records until it resumes.
        if (matching.length > 0) await untilRunning();
        if (abort.signal.aborted) return;
        if (matching.length > 0) {
          const outcome = await deliver(matching);
          // The batch reached no function: read again after a pause, as often as it takes (the records stay in
          // the stream); not one of the retries, which count the function's own failures.
          if (typeof outcome === 'object') {
            await wait(retryPauseMs * Math.min(2 ** throttles, 30));
            throttles += 1;
            lastSeen = BigInt(outcome.throttledAt) - 1n;
            next = await iterator(shardId, 'AT_SEQUENCE_NUMBER', outcome.throttledAt);
            continue;
          }
          throttles = 0;
          const failedAt = outcome;
          if (failedAt !== undefined && attempts < options.retryAttempts) {
            attempts += 1;
            await wait(retryPauseMs);
            lastSeen = BigInt(failedAt) - 1n;
            next = await iterator(shardId, 'AT_SEQUENCE_NUMBER', failedAt);
            continue;
          }
          if (failedAt !== undefined) {
            reportError(new Error(`gave up on a batch after ${attempts} retries (from sequence number ${failedAt})`));
          }
        }
        attempts = 0;
        const last = records.at(-1)?.dynamodb?.SequenceNumber;
        if (last !== undefined) lastSeen = BigInt(last);
        next = page.NextShardIterator;
        if (next && records.length === 0) await wait(idlePollMs);
      } catch (error) {
        if (abort.signal.aborted) return;
        // See `discover`: the iterator of a shard that was empty lies before its first record. Anything
        // else (DynamoDB Local restarting, a refused iterator) is reported once per streak.
        if ((error as Error).name !== 'TrimmedDataAccessException' && !failing) reportError(error);
        failing = (error as Error).name !== 'TrimmedDataAccessException';
        await wait(failing ? retryPauseMs : idlePollMs);
        next = await iterator(shardId, 'TRIM_HORIZON').catch(() => next);
      }
    }
  };

  /** Invokes the handler; answers the earliest failed sequence number, if any, or where a throttled batch starts. */
  const deliver = async (records: DynamoDBRecord[]): Promise<string | undefined | { throttledAt: string }> => {
    try {
      handler ??= options.handler();
      const response = await (
        await handler
      )({ Records: records }, lambdaContext(options.functionName, options.timeoutMs));
      // Sequence numbers are zero-padded decimal strings: compared as numbers, passed on as written. A
      // failure that names no record of the batch fails the whole batch, as on AWS.
      const failed = (response?.batchItemFailures ?? []).map((failure) => String(failure.itemIdentifier ?? ''));
      if (failed.length === 0) return undefined;
      const known = new Set(records.map((record) => record.dynamodb!.SequenceNumber!));
      if (failed.some((identifier) => !known.has(identifier))) return records[0]!.dynamodb!.SequenceNumber;
      return failed.reduce((lowest, value) => (BigInt(value) < BigInt(lowest) ? value : lowest));
    } catch (error) {
      if (isThrottle(error)) return { throttledAt: records[0]!.dynamodb!.SequenceNumber! };
      reportError(error);
      return records[0]!.dynamodb!.SequenceNumber;
    }
  };

  await discover('end');
  return {
    pause: () => {
      if (resumeReaders) return;
      running = new Promise((resolve) => (resumeReaders = resolve));
    },
    resume: () => {
      resumeReaders?.();
      resumeReaders = undefined;
      running = Promise.resolve();
    },
    stop: async () => {
      abort.abort();
      await Promise.all([...readers]);
      streams.destroy();
    },
  };
}

/** The record as Lambda hands it over (its attribute values have the same JSON shape). */
function lambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const change = record.dynamodb ?? {};
  return {
    eventID: record.eventID!,
    eventName: record.eventName!,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: LOCAL_REGION,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(change.ApproximateCreationDateTime && {
        ApproximateCreationDateTime: Math.floor(change.ApproximateCreationDateTime.getTime() / 1000),
      }),
      Keys: change.Keys as NonNullable<DynamoDBRecord['dynamodb']>['Keys'],
      ...(change.NewImage && { NewImage: change.NewImage as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'] }),
      ...(change.OldImage && { OldImage: change.OldImage as NonNullable<DynamoDBRecord['dynamodb']>['OldImage'] }),
      SequenceNumber: change.SequenceNumber!,
      SizeBytes: change.SizeBytes!,
      StreamViewType: change.StreamViewType!,
    },
  };
}

export function matches(pattern: FilterPattern, value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(pattern).every(([key, rule]) => {
    const field = (value as Record<string, unknown>)[key];
    if (Array.isArray(rule)) return (rule as readonly unknown[]).includes(field);
    return matches(rule as FilterPattern, field);
  });
}

function assertEqualityOnly(pattern: FilterPattern): void {
  for (const rule of Object.values(pattern)) {
    if (Array.isArray(rule)) {
      if (rule.some((value) => typeof value === 'object')) {
        throw new Error('the local stream event source supports equality filters only ({ field: [value] })');
      }
    } else assertEqualityOnly(rule as FilterPattern);
  }
}
