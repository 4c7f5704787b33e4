/**
 * A model's lifecycle in the catalog (docs/api-contract.md, "Models that come and go"): active; deprecated from
 * `deprecated_at`, still made, with a sunset date; retired at `retired_at` or at its sunset, refused. Submits to a
 * deprecated model carry `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers.
 */
export type ModelPhase = 'active' | 'deprecated' | 'retired';

export interface LifecycleDates {
  deprecated_at?: string | undefined;
  sunset_at?: string | undefined;
  retired_at?: string | undefined;
}

/** A model's own dates, the model to move to, and the dates of each upstream platform that retires it alone. */
export interface ModelLifecycle extends LifecycleDates {
  replacement?: string | undefined;
  platform_lifecycle?: Readonly<Record<string, LifecycleDates & { replacement?: string | undefined }>> | undefined;
}

const earliest = (...dates: (string | undefined)[]) =>
  dates.filter((at): at is string => at !== undefined).sort((a, b) => Date.parse(a) - Date.parse(b))[0];

/**
 * The lifecycle that holds on the stack's `platform`: an upstream may retire a model on one of its platforms only
 * (docs/providers/ark.md, "Models per platform"), so each date is the earlier of the model's and the platform's.
 */
export function lifecycleOn(
  record: ModelLifecycle,
  platform: string | undefined,
): LifecycleDates & { replacement?: string } {
  const own = platform === undefined ? undefined : record.platform_lifecycle?.[platform];
  const replacement = own?.replacement ?? record.replacement;
  const dates = {
    deprecated_at: earliest(record.deprecated_at, own?.deprecated_at),
    sunset_at: earliest(record.sunset_at, own?.sunset_at),
    retired_at: earliest(record.retired_at, own?.retired_at),
  };
  return Object.fromEntries(
    Object.entries({ ...dates, replacement }).filter(([, value]) => value !== undefined),
  ) as LifecycleDates & { replacement?: string };
}

/** Whether the model is gone from the stack's platform alone (not listed there), while other platforms still make it. */
export function retiredOnPlatform(record: ModelLifecycle, platform: string | undefined, now: Date): boolean {
  const own = platform === undefined ? undefined : record.platform_lifecycle?.[platform];
  return own !== undefined && phaseOf(own, now) === 'retired';
}

const reached = (at: string | undefined, now: Date) => at !== undefined && Date.parse(at) <= now.getTime();

export function phaseOf(record: LifecycleDates, now: Date): ModelPhase {
  if (reached(record.retired_at, now) || reached(record.sunset_at, now)) return 'retired';
  return reached(record.deprecated_at, now) ? 'deprecated' : 'active';
}

/** When it was (or will be) retired: the earlier of `retired_at` and the sunset. */
export function retiredAt(record: LifecycleDates): string | undefined {
  const dates = [record.retired_at, record.sunset_at].filter((at): at is string => at !== undefined);
  return dates.sort((a, b) => Date.parse(a) - Date.parse(b))[0];
}

/**
 * The headers of a submit to a deprecated model: `Deprecation: @<epoch seconds>` (RFC 9745, a Structured Field
 * Date) and, with a sunset, `Sunset: <IMF-fixdate>` (RFC 8594). None for an active model.
 */
export function deprecationHeaders(record: LifecycleDates, now: Date): Record<string, string> {
  if (phaseOf(record, now) !== 'deprecated' || record.deprecated_at === undefined) return {};
  const headers: Record<string, string> = { Deprecation: `@${Math.floor(Date.parse(record.deprecated_at) / 1000)}` };
  if (record.sunset_at !== undefined) headers['Sunset'] = new Date(record.sunset_at).toUTCString();
  return headers;
}
