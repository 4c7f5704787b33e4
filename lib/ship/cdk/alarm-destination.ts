/**
 * Where the alarms go, named by every deployment (context `alarmsTo`): an email address subscribed to the
 * `<prefix>-alarms` topic, an existing SNS topic's ARN (the alarms publish there), or `none`, an opt-out that
 * synthesis prints on every deploy. Unset: the stack cannot be deployed (a parameter no value satisfies).
 */
import { SetupError } from '../setup-error.js';

export type AlarmDestination =
  | { readonly kind: 'email'; readonly address: string }
  | { readonly kind: 'topic'; readonly arn: string }
  | { readonly kind: 'none' };

export const ALARMS_CONTEXT = 'alarmsTo';
/** Stands in when no destination is named: synthesis works (tests, sam local), CloudFormation refuses a deploy. */
export const MISSING_ALARMS_PARAMETER = 'AlarmDestinationNotConfigured';
export const ALARMS_FIX =
  `set context ${ALARMS_CONTEXT} in cdk.json to an email address, an SNS topic ARN, or "none" ` +
  '(docs/operations.md, "Where alarms go")';

/** `alarmsTo` (or the older `alarmEmail`, an address) from context; undefined when neither is set. */
export function alarmDestination(alarmsTo: string | undefined, alarmEmail: string | undefined) {
  if (alarmsTo !== undefined && alarmEmail !== undefined) {
    throw new SetupError(`context alarmEmail and ${ALARMS_CONTEXT} are both set: keep ${ALARMS_CONTEXT} only`);
  }
  const value = alarmsTo ?? alarmEmail;
  if (value === undefined) return undefined;
  if (value === 'none') return { kind: 'none' } satisfies AlarmDestination;
  if (/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/.test(value)) {
    return { kind: 'topic', arn: value } satisfies AlarmDestination;
  }
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return { kind: 'email', address: value } satisfies AlarmDestination;
  throw new SetupError(`context ${ALARMS_CONTEXT} "${value}" is neither an email address, an SNS topic ARN nor "none"`);
}

/** What the deploy prints (and outputs) about where alarms go. */
export function describeAlarmDestination(destination: AlarmDestination | undefined): string {
  if (!destination) return `not configured: this synthesis cannot be deployed; ${ALARMS_FIX}`;
  if (destination.kind === 'email') return `email ${destination.address} (confirm the subscription SNS sends)`;
  if (destination.kind === 'topic') return `SNS topic ${destination.arn}`;
  return `nowhere (${ALARMS_CONTEXT}=none): alarms change state in CloudWatch and notify nobody`;
}
