/**
 * The implicit label's seven elements (GB 45438-2025), serialised as the JSON value of the MP4 metadata key
 * `AIGC` (docs/compliance.md, "The implicit label"). Label: 1 generated, 2 possibly, 3 suspected.
 */

export const AIGC_FIELDS = [
  'Label',
  'ContentProducer',
  'ProduceID',
  'ReservedCode1',
  'ContentPropagator',
  'PropagateID',
  'ReservedCode2',
] as const;

export type AigcField = (typeof AIGC_FIELDS)[number];
export type AigcLabel = Record<AigcField, string>;

const LABEL_VALUES = new Set(['1', '2', '3']);

/** A label from the caller, its missing elements empty; refuses a Label value the standard does not define. */
export function aigcLabel(fields: Partial<AigcLabel> & Pick<AigcLabel, 'Label' | 'ContentProducer'>): AigcLabel {
  if (!LABEL_VALUES.has(fields.Label)) throw new RangeError(`AIGC Label must be 1, 2 or 3, not ${fields.Label}`);
  return Object.fromEntries(AIGC_FIELDS.map((field) => [field, fields[field] ?? ''])) as AigcLabel;
}

/** The JSON value, its keys in the standard's order so that equal labels are equal bytes. */
export function serializeAigcLabel(label: AigcLabel): string {
  return JSON.stringify(Object.fromEntries(AIGC_FIELDS.map((field) => [field, label[field]])));
}

/**
 * A label read from a file, leniently: another writer may use numbers (`"Label": 1`) or leave elements out.
 * Undefined when the value is not a JSON object.
 */
export function parseAigcLabel(json: string): AigcLabel | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const text = (field: AigcField) => {
    const element = record[field];
    return typeof element === 'string' ? element : typeof element === 'number' ? String(element) : '';
  };
  return Object.fromEntries(AIGC_FIELDS.map((field) => [field, text(field)])) as AigcLabel;
}

/**
 * What to write over a file that is labelled already. The producer's three elements (ContentProducer, its
 * ProduceID, and ReservedCode1 that may bind the two to the content) stay together: a producer's own code with
 * our content number would describe content nobody produced. The rest is ours.
 */
export function mergeAigcLabel(existing: AigcLabel | undefined, ours: AigcLabel): AigcLabel {
  if (!existing?.ContentProducer) return ours;
  return {
    ...ours,
    ContentProducer: existing.ContentProducer,
    ProduceID: existing.ProduceID,
    ReservedCode1: existing.ReservedCode1,
  };
}
