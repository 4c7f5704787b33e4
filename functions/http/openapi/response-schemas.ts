/**
 * The answers' shapes as valibot schemas, for the OpenAPI document. Each one's type is checked against the type
 * its use case returns (both ways, below): a field added to a view fails `tsc` until it is described here. They
 * are strict (no other fields), so the e2e tests, which validate every answer, catch an undocumented field.
 */
import * as v from 'valibot';
import { IMAGE_MODES } from '../../core/provider-contract.js';
import { RATIOS, RESOLUTIONS } from '../../core/generation-options.js';
import type { SubmitTaskResult } from '../../core/use-cases/submit-task.js';
import type { BalanceView } from '../../core/use-cases/get-balance.js';
import type { toModelView } from '../../core/use-cases/list-models.js';
import type { TaskListView } from '../../core/use-cases/list-tasks.js';
import type { TaskView } from '../../core/task.js';
import { TASK_STATUSES } from '../../core/task-status.js';
import { KeyViewSchema } from '../../core/console-key.js';

const EXAMPLE_TASK_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const isoTime = (description: string) => v.pipe(v.string(), v.isoTimestamp(), v.description(description));
const yuan = (description: string) => v.pipe(v.number(), v.description(`${description} In yuan (CNY).`));
const count = (description: string) => v.pipe(v.number(), v.integer(), v.minValue(0), v.description(description));

export const TaskIdSchema = v.pipe(
  v.string(),
  v.uuid(),
  v.description('The task id (a UUID) that the submit returned.'),
  v.examples([EXAMPLE_TASK_ID]),
);

const WebhookSchema = v.pipe(
  v.strictObject({
    state: v.pipe(
      v.picklist(['pending', 'retrying', 'delivered', 'failed', 'not_sent']),
      v.description(
        'pending: not sent yet; retrying: failed so far, more tries to come; delivered; failed: given up; not_sent: a cancelled task sends none.',
      ),
    ),
    attempts: count('Deliveries tried so far.'),
    last_status_code: v.pipe(v.nullable(v.number()), v.description('The HTTP status your endpoint last answered.')),
    last_error: v.pipe(v.nullable(v.string()), v.description('Why the last try failed, if it did.')),
    last_attempt_at: v.pipe(v.nullable(v.string()), v.description('When the last try was made (ISO 8601).')),
    delivered_at: v.pipe(v.nullable(v.string()), v.description('When your endpoint accepted it (ISO 8601).')),
  }),
  v.description('The completion webhook; null when the task has no webhook_url.'),
);

const CostBreakdownSchema = v.pipe(
  v.strictObject({
    base: yuan('The price at multiplier 1: price_per_second × duration, or price_per_call.'),
    resolution: yuan("What the resolution's multiplier (per_call: the quality multiplier) adds; negative below 1."),
    audio: yuan('audio_extra when generate_audio is true (its default on models with sound), else 0.'),
    surcharges: yuan('material_surcharge × the reference videos and audios.'),
  }),
  v.description('What the cost is made of: base + resolution + audio + surcharges = cost, exactly.'),
);

export const TaskSchema = v.pipe(
  v.strictObject({
    task_id: TaskIdSchema,
    status: v.pipe(
      v.picklist(TASK_STATUSES),
      v.description(
        'pending (paid; waiting for capacity or queued upstream) → running (being generated) → transferring → success; or failed, or refunded (cancelled).',
      ),
    ),
    video_url: v.pipe(
      v.nullable(v.string()),
      v.description('Signed URL of the video once the status is success (valid 24 h; a later query signs it again).'),
    ),
    cost: yuan('What the task cost (refunded in full if it failed or was cancelled).'),
    created_at: isoTime('When the task was submitted (ISO 8601).'),
    finished_at: v.pipe(
      v.nullable(v.string()),
      v.description('When the task ended (ISO 8601); null while in progress.'),
    ),
    error_message: v.pipe(
      v.nullable(v.string()),
      v.description('Why generation failed; null unless the status is failed.'),
    ),
    model: v.pipe(v.string(), v.description('The model that generates the video (its name).')),
    prompt: v.pipe(v.string(), v.description('The prompt as submitted.')),
    metadata: v.pipe(
      v.record(v.string(), v.string()),
      v.description('Your own pairs, as submitted (`metadata`); {} without any.'),
    ),
    duration: v.pipe(v.number(), v.integer(), v.description('Seconds of video, as generated and billed.')),
    resolution: v.pipe(v.picklist(RESOLUTIONS), v.description('The resolution generated.')),
    ratio: v.pipe(v.picklist(RATIOS), v.description('The aspect ratio generated.')),
    generate_audio: v.pipe(v.boolean(), v.description('Whether the video has generated audio.')),
    image_mode: v.pipe(v.nullable(v.picklist(IMAGE_MODES)), v.description("The images' role; null without images.")),
    result_url: v.pipe(v.nullable(v.string()), v.description('Form B name of video_url (the same value).')),
    video_url_expires_at: v.pipe(v.nullable(v.string()), v.description('When video_url stops working (ISO 8601).')),
    video_deleted_at: v.pipe(
      v.nullable(v.string()),
      v.description(
        "When the service's storage policy deleted the video (ISO 8601); video_url is then null. Null otherwise.",
      ),
    ),
    webhook: v.nullable(WebhookSchema),
    aigc: v.pipe(
      v.nullable(
        v.strictObject({
          content_producer: v.pipe(v.string(), v.description('ContentProducer: who generated it (the upstream).')),
          produce_id: v.pipe(v.string(), v.description("ProduceID: the upstream's job id.")),
          content_propagator: v.pipe(v.string(), v.description("ContentPropagator: this service's operator code.")),
          propagate_id: v.pipe(v.string(), v.description('PropagateID: this task id.')),
        }),
      ),
      v.description(
        'The implicit AI-content label (GB 45438-2025) written into the delivered MP4 as its `AIGC` metadata; null until success. Keep it when you re-publish (docs/compliance.md).',
      ),
    ),
    cost_breakdown: v.pipe(
      v.nullable(CostBreakdownSchema),
      v.description('What the cost is made of; null for tasks made before it was kept.'),
    ),
    queue_position: v.pipe(
      v.nullable(v.number()),
      v.description(
        'While the task waits for upstream capacity: 1 when it starts next. Null once its job is queued upstream (the upstream reports no place), otherwise, and always in the list. Shown by GET /video/tasks/{id}.',
      ),
    ),
  }),
  v.description('A video generation task (docs/api-contract.md, "Task object", with additive fields).'),
);

export const SubmitResultSchema = v.strictObject({
  task_id: TaskIdSchema,
  status: v.pipe(v.literal('pending'), v.description('Always pending (Form A).')),
  cost: yuan('What was charged for the task.'),
  cost_breakdown: v.optional(CostBreakdownSchema),
  created_at: isoTime('When the task was created (ISO 8601).'),
});

export const BalanceSchema = v.strictObject({
  balance: yuan('The available balance of the account that owns the API key.'),
  currency: v.literal('CNY'),
});

const ResolutionMap = v.pipe(
  v.strictObject(
    Object.fromEntries(RESOLUTIONS.map((resolution) => [resolution, v.number()])) as Record<
      (typeof RESOLUTIONS)[number],
      v.NumberSchema<undefined>
    >,
  ),
  v.description('Price multiplier by resolution; 0 means the model does not make that resolution.'),
);

export const ModelSchema = v.strictObject({
  id: v.pipe(v.string(), v.uuid(), v.description('The model id: send it as model_id (Form A) or modelId (Form B).')),
  name: v.pipe(v.string(), v.description('The model name: send it as model.')),
  display_name: v.string(),
  description: v.nullable(v.string()),
  status: v.picklist(['active', 'inactive']),
  lifecycle: v.pipe(
    v.picklist(['active', 'deprecated', 'retired']),
    v.description(
      'deprecated: still made, until sunset_at; a submit to it answers with Deprecation and Sunset headers. ' +
        'retired: a submit to it is refused with a 400.',
    ),
  ),
  deprecated_at: v.pipe(
    v.nullable(v.string()),
    v.description('When the model was (or will be) deprecated (ISO 8601).'),
  ),
  sunset_at: v.pipe(v.nullable(v.string()), v.description('When the model stops (or stopped) being made (ISO 8601).')),
  replacement: v.pipe(v.nullable(v.string()), v.description('The model to move to, by name.')),
  billing_mode: v.picklist(['per_second', 'per_call']),
  pricing: v.strictObject({
    price_per_call: yuan('per_call models: the price of one task.'),
    price_per_second: yuan('per_second models: the base price of one second.'),
    resolution_multipliers: ResolutionMap,
    audio_extra: yuan('Surcharge when audio is generated.'),
    material_surcharge: yuan('Surcharge per reference video or audio.'),
    quality_multiplier: v.pipe(v.number(), v.description('per_call models: the multiplier of price_per_call.')),
    currency: v.pipe(v.string(), v.description('Always CNY.'), v.examples(['CNY'])),
  }),
  max_duration: v.pipe(v.number(), v.integer(), v.description('The longest duration a request may ask, in seconds.')),
  fixed_duration: v.pipe(v.nullable(v.number()), v.description('per_call models: the one duration made.')),
  default_resolution: v.picklist(RESOLUTIONS),
  supported_resolutions: v.array(v.picklist(RESOLUTIONS)),
  ratios: v.array(v.picklist(RATIOS)),
  reference_kinds: v.array(v.picklist(['image', 'video', 'audio'])),
  supports_audio: v.boolean(),
  capabilities: v.pipe(
    v.strictObject({
      text_to_video: v.boolean(),
      image_modes: v.array(v.picklist(IMAGE_MODES)),
      default_image_mode: v.nullable(v.picklist(IMAGE_MODES)),
      reference_images: v.nullable(v.strictObject({ min: v.number(), max: v.number() })),
      max_videos: v.number(),
      max_audios: v.number(),
      max_reference_items: v.number(),
      audio_needs_image_or_video: v.boolean(),
      duration: v.strictObject({ min: v.number(), max: v.number(), fixed: v.boolean() }),
      resolutions: v.array(v.picklist(RESOLUTIONS)),
      reference_resolutions: v.nullable(v.array(v.picklist(RESOLUTIONS))),
      ratios: v.array(v.picklist(RATIOS)),
      generate_audio: v.boolean(),
    }),
    v.description('What the model accepts, from its upstream contract.'),
  ),
  priced_options: v.pipe(
    v.array(
      v.strictObject({
        option: v.picklist(['resolution', 'duration', 'generate_audio', 'video_urls', 'audio_urls']),
        default: v.pipe(
          v.nullable(v.union([v.string(), v.number(), v.boolean()])),
          v.description('What a submit gets when the option is left out (duration: Form A; Form B is 5).'),
        ),
        cost: v.pipe(v.string(), v.description('What the option adds to the cost, in CNY.')),
      }),
    ),
    v.description(
      'The options that change the cost and their defaults; generate_audio defaults to true on models with sound.',
    ),
  ),
});

export const ModelListSchema = v.array(ModelSchema);

/** GET /api/v1/console/keys */
export const KeyListSchema = v.strictObject({ items: v.array(KeyViewSchema) });

export const TaskListSchema = v.strictObject({
  items: v.pipe(v.array(TaskSchema), v.description('Newest first.')),
  next_cursor: v.pipe(
    v.nullable(v.string()),
    v.description('Pass as `cursor` for the next page; null on the last page. A status-filtered page may be short.'),
  ),
});

export const HealthSchema = v.strictObject({ status: v.literal('ok') });

// Both ways: the schema describes exactly what the use case returns.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const agreements: [
  Same<v.InferOutput<typeof TaskSchema>, TaskView>,
  Same<v.InferOutput<typeof SubmitResultSchema>, SubmitTaskResult>,
  Same<v.InferOutput<typeof BalanceSchema>, BalanceView>,
  Same<v.InferOutput<typeof ModelSchema>, ReturnType<typeof toModelView>>,
  Same<v.InferOutput<typeof TaskListSchema>, TaskListView>,
] = [true, true, true, true, true];
void agreements;
