/** The OpenAPI document's examples; a unit test validates each one against the schema it illustrates. */
import type { ErrorCode } from '../../core/api-error.js';

const TASK_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const UPLOAD_ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

const task = {
  task_id: TASK_ID,
  status: 'success',
  video_url:
    'https://d111111abcdef8.cloudfront.net/videos/acct/0f8fad5b.mp4?Expires=1767312000&Signature=Zm9vYmFy&Key-Pair-Id=K2JCJMDEHXQW5F',
  cost: 4.2,
  created_at: '2026-01-01T08:00:00.000Z',
  finished_at: '2026-01-01T08:01:10.000Z',
  error_message: null,
  model: 'seedance-1.5-pro',
  prompt: 'A red fox runs through fresh snow at dawn',
  metadata: { campaign: 'winter-2026' },
  duration: 5,
  resolution: '720p',
  ratio: '16:9',
  generate_audio: true,
  image_mode: null,
  result_url:
    'https://d111111abcdef8.cloudfront.net/videos/acct/0f8fad5b.mp4?Expires=1767312000&Signature=Zm9vYmFy&Key-Pair-Id=K2JCJMDEHXQW5F',
  video_url_expires_at: '2026-01-02T08:01:10.000Z',
  video_deleted_at: null,
  webhook: {
    state: 'delivered',
    attempts: 1,
    last_status_code: 200,
    last_error: null,
    last_attempt_at: '2026-01-01T08:01:11.000Z',
    delivered_at: '2026-01-01T08:01:11.000Z',
  },
  aigc: {
    content_producer: 'Volcengine Ark / BytePlus ModelArk',
    produce_id: 'cgt-20260101080005-x7k2p',
    content_propagator: 'acme-video-gw',
    propagate_id: TASK_ID,
  },
  cost_breakdown: { base: 3, resolution: 0, audio: 1.2, surcharges: 0 },
  queue_position: null,
};

const pendingTask = {
  ...task,
  task_id: 'a3bb189e-8bf9-4888-9912-ace4e6543002',
  status: 'pending',
  video_url: null,
  created_at: '2026-01-01T08:05:00.000Z',
  finished_at: null,
  result_url: null,
  video_url_expires_at: null,
  video_deleted_at: null,
  webhook: null,
  aigc: null,
};

const TOPUP = {
  topup_id: 'tp_5b1e0c7a2f9d4e3b8a6c1d0e9f2a3b4c',
  status: 'pending',
  amount: 100,
  qr_code: 'https://qr.alipay.com/bax08431ujqwdtvqmqn5009f',
  created_at: '2026-11-28T08:00:00.000Z',
  expires_at: '2026-11-28T08:15:00.000Z',
  paid_at: null,
  trade_no: null,
};

const DELIVERY = {
  id: 'wd_0mhx1c2k0a1b2c3d4e5f6',
  webhook_id: 'msg_7a0c1a8e1f0b4a519d866b8f5f0c2d11_success',
  event: 'task.success',
  task_id: '7a0c1a8e-1f0b-4a51-9d86-6b8f5f0c2d11',
  url: 'https://example.com/hooks/video',
  attempted_at: '2026-01-01T08:05:10.000Z',
  status_code: 503,
  latency_ms: 182,
  error: 'HTTP 503',
  response_excerpt: 'upstream unavailable',
  outcome: 'retrying',
  redelivery: false,
};

export const EXAMPLES = {
  topup: TOPUP,
  delivery: DELIVERY,
  deliveries: { items: [DELIVERY], next_cursor: null },
  redelivered: {
    ...DELIVERY,
    id: 'wd_0mhx3f9a2ffe1d2c3b4a596',
    attempted_at: '2026-01-01T09:00:00.000Z',
    status_code: 204,
    latency_ms: 95,
    error: null,
    response_excerpt: null,
    outcome: 'delivered',
    redelivery: true,
  },
  paidTopup: {
    ...TOPUP,
    status: 'paid',
    qr_code: null,
    paid_at: '2026-11-28T08:01:12.000Z',
    trade_no: '2026112822001476541234567890',
  },
  submitRequests: {
    formA: {
      summary: 'Form A (snake_case)',
      value: {
        model: 'seedance-1.5-pro',
        prompt: 'A red fox runs through fresh snow at dawn',
        duration: 5,
        resolution: '720p',
        ratio: '16:9',
        webhook_url: 'https://example.com/hooks/video',
      },
    },
    formB: {
      summary: 'Form B (camelCase)',
      value: {
        modelId: '6f1c2a0e-5b7d-4c1e-9a3f-0d2b8e4c7a11',
        prompt: 'The same shot, from the first frame given',
        imageUrls: ['https://example.com/first-frame.png'],
      },
    },
    upload: {
      summary: 'With an uploaded reference image',
      value: {
        model: 'seedance-1.5-pro',
        prompt: 'Animate this picture',
        image_urls: [`upload://${UPLOAD_ID}`],
        image_mode: 'first_frame',
      },
    },
  },
  submitResult: {
    task_id: TASK_ID,
    status: 'pending',
    cost: 4.2,
    cost_breakdown: { base: 3, resolution: 0, audio: 1.2, surcharges: 0 },
    created_at: '2026-01-01T08:00:00.000Z',
  },
  task,
  refundedTask: { ...pendingTask, status: 'refunded', finished_at: '2026-01-01T08:05:03.000Z' },
  taskList: { items: [pendingTask, task], next_cursor: 'eyJhY2NvdW50X2lkIjoiYWNjdCIsImNyZWF0ZWRfYXQiOiIyMDI2In0' },
  transactions: {
    items: [
      {
        id: `charge:${TASK_ID}`,
        type: 'charge',
        amount: -4.2,
        task_id: TASK_ID,
        created_at: '2026-01-01T08:00:00.000Z',
      },
      { id: 'topup:req-2026-001', type: 'topup', amount: 100, task_id: null, created_at: '2025-12-31T09:00:00.000Z' },
    ],
    next_cursor: null,
  },
  // As GET /api/v1/models shows the seeded seedance-1.5-pro (a unit test holds it to that).
  models: [
    {
      id: '6f1c2a0e-5b7d-4c1e-9a3f-0d2b8e4c7a11',
      name: 'seedance-1.5-pro',
      display_name: 'Seedance 1.5 Pro (with sound)',
      description:
        'Text, first frame or first and last frame to video, with generated sound unless generate_audio is false; 480p to 1080p, 5 to 12 s.',
      status: 'active',
      lifecycle: 'active',
      deprecated_at: null,
      sunset_at: null,
      replacement: null,
      billing_mode: 'per_second',
      pricing: {
        price_per_call: 0,
        price_per_second: 0.6,
        resolution_multipliers: { '480p': 0.5, '720p': 1, '1080p': 2.25, '2k': 0, '4k': 0 },
        audio_extra: 1.2,
        material_surcharge: 0,
        quality_multiplier: 1,
        currency: 'CNY',
      },
      max_duration: 12,
      fixed_duration: null,
      default_resolution: '720p',
      supported_resolutions: ['480p', '720p', '1080p'],
      ratios: ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'],
      reference_kinds: ['image'],
      supports_audio: true,
      capabilities: {
        text_to_video: true,
        image_modes: ['first_frame', 'first_last_frame'],
        default_image_mode: 'first_frame',
        reference_images: null,
        max_videos: 0,
        max_audios: 0,
        max_reference_items: 0,
        audio_needs_image_or_video: false,
        duration: { min: 5, max: 12, fixed: false },
        resolutions: ['480p', '720p', '1080p'],
        reference_resolutions: null,
        ratios: ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'],
        generate_audio: true,
      },
      priced_options: [
        { option: 'resolution', default: '720p', cost: 'multiplies the price: 480p × 0.5, 720p × 1, 1080p × 2.25' },
        {
          option: 'duration',
          default: 12,
          cost: "0.6 CNY per second × the resolution's multiplier; the default is 5 in Form B",
        },
        { option: 'generate_audio', default: true, cost: '+1.2 CNY when true (the default)' },
      ],
    },
  ],
  upload: {
    upload_id: UPLOAD_ID,
    upload_url:
      'https://vgs-videos.s3.amazonaws.com/uploads/acct/7c9e6679-7425-40de-944b-e07fc1f90ae7?X-Amz-Signature=Zm9vYmFy&Key-Pair-Id=K2JCJMDEHXQW5F',
    upload_method: 'PUT',
    upload_headers: { 'Content-Type': 'image/png', 'Content-Length': '482113' },
    file_url: `upload://${UPLOAD_ID}`,
    expires_at: '2026-01-03T08:00:00.000Z',
  },
  errorMessages: {
    400: 'duration: must be between 5 and 30',
    401: 'API key is missing, invalid or disabled',
    402: 'insufficient balance: top up and retry',
    403: 'this task belongs to another account',
    404: 'task 0f8fad5b-d9cb-469f-a165-70867728950e does not exist',
    415: 'Content-Type must be application/json (got text/plain)',
    429: 'too many requests: retry after 1 s',
    500: 'internal server error',
  } satisfies Record<ErrorCode, string>,
};
