/**
 * When the storage policy has removed a finished video (docs/operations.md, "Video storage"): S3 expires an
 * object at the first midnight UTC after its creation plus the rule's days; the task's finished_at is a few
 * minutes after the video's creation, so midnight UTC at or before finished_at plus the days is never later
 * than S3's deletion. The video may then live up to a day longer than we say: never a dead URL answered.
 */
const DAY_MS = 24 * 60 * 60 * 1000;

/** The time from which the task's video counts as deleted; undefined when videos are kept. */
export function videoDeletedAt(finishedAt: string | undefined, retentionDays: number | undefined): Date | undefined {
  if (retentionDays === undefined || finishedAt === undefined) return undefined;
  const end = Date.parse(finishedAt) + retentionDays * DAY_MS;
  return new Date(end - (end % DAY_MS));
}

export function videoDeletedMessage(deletedAt: string, retentionDays: number): string {
  return (
    `the video was deleted on ${deletedAt.slice(0, 10)}: the service keeps videos ${retentionDays} days after ` +
    'the task ends; submit the task again for a new one'
  );
}
