/**
 * Growing delays between upstream polls, capped by the schedule's last value, so that even the longest
 * deadline stays far under Step Functions' 25,000-event history (1 h at a 60 s cap ≈ 60 polls).
 */
export function pollDelaySeconds(attempt: number, schedule: readonly number[]): number {
  if (schedule.length === 0) throw new RangeError('empty poll schedule');
  const index = Math.min(Math.max(attempt, 0), schedule.length - 1);
  return schedule[index] as number;
}

export function parsePollSchedule(text: string): number[] {
  const delays = text.split(',').map((part) => Number(part.trim()));
  if (delays.length === 0 || delays.some((delay) => !Number.isInteger(delay) || delay < 1 || delay > 3600)) {
    throw new RangeError(`poll schedule "${text}" must be a comma-separated list of whole seconds (1–3600)`);
  }
  return delays;
}
