/** describeFailure: the customer-facing reason a failed task stores, without internals; jobFailure: which one. */
import { describe, expect, it } from 'vitest';
import {
  ContentModerationError,
  UpstreamAccountError,
  UpstreamBusyError,
  UpstreamConfigurationError,
  UpstreamJobNotFoundError,
  UpstreamOutcomeUnknownError,
  UpstreamRejectedError,
  UpstreamTransientError,
} from '../../functions/core/upstream-errors.js';
import {
  describeFailure,
  withoutUpstreamNames,
  GenerationTimedOutError,
  jobFailure,
  UpstreamJobFailedError,
  VideoDownloadInterruptedError,
  VideoRejectedError,
  WaitingForUpstreamError,
} from '../../functions/core/workflow-errors.js';
import { PROVIDERS } from '../../functions/providers/registry.js';

const ARK_PRIVATE_WORDS = PROVIDERS.ark.privateWords;

describe('describeFailure', () => {
  // Their detail is ours, or the upstream's words without its names and ids.
  const named: [string, string][] = [
    [new UpstreamJobFailedError('x').name, 'generation failed'],
    [new UpstreamRejectedError('x').name, 'the generator rejected the task'],
    [new GenerationTimedOutError('x').name, 'generation timed out'],
    [new VideoRejectedError('x').name, 'the generated file could not be stored'],
    [new VideoDownloadInterruptedError('x').name, 'the generated video could not be downloaded'],
  ];
  // Their messages are for operators: our key and account, the upstream's name and its job ids.
  const withoutDetail: [string, string][] = [
    [new UpstreamBusyError('x').name, 'the generator had no capacity for the task'],
    [new UpstreamAccountError('x').name, 'the generator could not be used'],
    [new WaitingForUpstreamError('x').name, 'the generator had no capacity for the task'],
    [new UpstreamTransientError('x').name, 'the generator could not be reached'],
    [new UpstreamOutcomeUnknownError('x').name, 'the generator did not confirm the task'],
    [new UpstreamJobNotFoundError('x').name, 'the generator lost the task'],
    [
      new UpstreamConfigurationError('x').name,
      'the model is not available from the generator (a configuration problem on our side; our operators were alerted)',
    ],
  ];

  it('a lost job names neither the upstream nor its job id', () => {
    const Cause = JSON.stringify({
      errorType: 'UpstreamJobNotFoundError',
      errorMessage: 'Ark does not know task cgt-20260101-abc',
    });
    expect(describeFailure({ Error: 'UpstreamJobNotFoundError', Cause })).toBe('the generator lost the task');
  });

  it("the upstream's words keep what to change, without its names, models and ids", () => {
    const said =
      'The parameter `image_url` specified in the request is not valid for doubao-seedance-1-5-pro-251215 on Ark. Request id: 0217abc-99';
    expect(describeFailure({ Error: 'UpstreamRejectedError', Cause: said }, [ARK_PRIVATE_WORDS])).toBe(
      'the generator rejected the task: The parameter `image_url` specified in the request is not valid for the task on the generator.',
    );
    expect(withoutUpstreamNames('BytePlus job cgt-2026-x failed (request id: 42)', [ARK_PRIVATE_WORDS])).toBe(
      'the generator job the task failed',
    );
  });

  it("every registered provider's names and model ids are hidden, whichever upstream spoke", () => {
    const words = Object.values(PROVIDERS).map((provider) => provider.privateWords);
    expect(withoutUpstreamNames('DashScope: wan2.7-t2v refused it; ask Alibaba Cloud (BytePlus)', words)).toBe(
      'the generator: the task refused it; ask the generator (the generator)',
    );
    // Nothing given, nothing hidden but the request id.
    expect(withoutUpstreamNames('Ark said no. Request id: 9', [])).toBe('Ark said no.');
  });

  it.each(withoutDetail)('%s → "%s", never its message (our key, our account)', (name, reason) => {
    const Cause = JSON.stringify({ errorType: name, errorMessage: 'Ark refused our API key (AuthenticationError)' });
    expect(describeFailure({ Error: name, Cause })).toBe(reason);
    expect(describeFailure({ Error: name })).toBe(reason);
  });

  it.each(named)('%s with a Lambda JSON Cause → "%s: <errorMessage>"', (name, prefix) => {
    const Cause = JSON.stringify({ errorType: name, errorMessage: 'content policy', trace: ['at secret.ts:1'] });
    expect(describeFailure({ Error: name, Cause })).toBe(`${prefix}: content policy`);
  });

  it.each(named)('%s with a plain Cause → "%s: <cause>"', (name, prefix) => {
    expect(describeFailure({ Error: name, Cause: 'quota exhausted' })).toBe(`${prefix}: quota exhausted`);
  });

  it.each(named)('%s without a Cause → "%s"', (name, prefix) => {
    expect(describeFailure({ Error: name })).toBe(prefix);
    expect(describeFailure({ Error: name, Cause: '' })).toBe(prefix);
  });

  it('the error names are the class names the state machine matches', () => {
    expect(named.map(([name]) => name)).toEqual([
      'UpstreamJobFailedError',
      'UpstreamRejectedError',
      'GenerationTimedOutError',
      'VideoRejectedError',
      'VideoDownloadInterruptedError',
    ]);
    expect(withoutDetail.map(([name]) => name)).toEqual([
      'UpstreamBusyError',
      'UpstreamAccountError',
      'WaitingForUpstreamError',
      'UpstreamTransientError',
      'UpstreamOutcomeUnknownError',
      'UpstreamJobNotFoundError',
      'UpstreamConfigurationError',
    ]);
    expect(new ContentModerationError('text', 'sensitive').name).toBe('ContentModerationError');
  });

  it('ContentModerationError: its message is the whole reason, naming what to change', () => {
    const cases = [
      [
        new ContentModerationError('text', 'sensitive', 'Ark: no. Request id: 1'),
        'the prompt: its text may contain sensitive content; change it',
      ],
      [
        new ContentModerationError('image', 'privacy'),
        "the prompt: a reference image shows a real person's face; change it",
      ],
      [
        new ContentModerationError('video', 'copyright'),
        'the prompt: a reference video may infringe copyright; change it',
      ],
      [
        new ContentModerationError('audio', 'sensitive'),
        'the prompt: a reference audio may contain sensitive content; change it',
      ],
      [
        new ContentModerationError('output', 'sensitive'),
        'the generated video: it may contain sensitive content; change the prompt or the references',
      ],
    ] as const;
    for (const [error, middle] of cases) {
      const reason = describeFailure({
        Error: error.name,
        Cause: JSON.stringify({ errorType: error.name, errorMessage: error.message }),
      });
      expect(reason).toBe(error.message.replace(/ \(upstream: .*\)$/, ''));
      expect(reason).not.toMatch(/Ark|Request id/);
      expect(reason.startsWith(`the upstream's content moderation refused ${middle} and submit again`)).toBe(true);
    }
    expect(cases[0][0].message).toMatch(/\(upstream: Ark: no\. Request id: 1\)$/);
    expect(describeFailure({ Error: 'ContentModerationError' })).toBe(
      "the upstream's content moderation refused the task",
    );
  });

  it.each(['TypeError', 'Error', 'States.TaskFailed', 'Lambda.Unknown', 'States.Runtime', 'TaskNotFoundError'])(
    'an unknown error (%s) → a generic message without internals',
    (name) => {
      const Cause = JSON.stringify({
        errorType: name,
        errorMessage: 'connect ECONNREFUSED 10.0.0.12:8000 table tasks-prod',
        trace: ['at /var/task/index.mjs:42'],
      });
      const message = describeFailure({ Error: name, Cause });
      expect(message).toBe('internal error while processing the task');
      expect(message).not.toMatch(/ECONNREFUSED|10\.0\.0|var\/task|tasks-prod/);
    },
  );

  const textOnly = { form: 'A' as const, generation: { imageUrls: [], videoUrls: [], audioUrls: [] } };

  it('jobFailure: moderation and expiry in our words, any other failure with the upstream’s message', () => {
    const moderated = jobFailure(
      {
        state: 'failed',
        message: 'sensitive output',
        cause: { kind: 'moderation', content: 'output', concern: 'copyright' },
      },
      textOnly,
    );
    expect(moderated).toBeInstanceOf(ContentModerationError);
    expect(moderated.message).toContain('the generated video: it may infringe copyright');
    const expired = jobFailure({ state: 'failed', message: 'x', cause: { kind: 'expired' } }, textOnly);
    expect(describeFailure({ Error: expired.name, Cause: expired.message })).toBe(
      'generation timed out: the upstream gave up on the job before it finished',
    );
    const other = jobFailure({ state: 'failed', message: 'InternalServiceError' }, textOnly);
    expect([other.name, other.message]).toEqual(['UpstreamJobFailedError', 'InternalServiceError']);
  });

  it('jobFailure: an unusable reference names the customer’s field and index, in the form they used', () => {
    const generation = {
      imageUrls: ['https://a/1.png', 'https://a/2.png'],
      videoUrls: ['https://a/v.mp4'],
      audioUrls: [],
    };
    const reason = (cause: Parameters<typeof jobFailure>[0]['cause'], form: 'A' | 'B' = 'A') => {
      const error = jobFailure(
        { state: 'failed', message: 'The parameter `content[3]` … (HTTP 404)', cause },
        { form, generation },
      );
      return describeFailure({ Error: error.name, Cause: error.message });
    };
    expect(reason({ kind: 'reference', problem: 'unreachable', media: 'video', position: 2 })).toBe(
      'the reference video_urls[0] could not be downloaded by the generator: give a public http(s) URL that answers ' +
        'GET without sign-in, or upload the file (POST /api/v1/uploads); the charge was refunded',
    );
    expect(reason({ kind: 'reference', problem: 'too-large', position: 1 }, 'B')).toMatch(
      /^the reference imageUrls\[1\] is larger than the generator takes for an image: send a smaller file;/,
    );
    expect(reason({ kind: 'reference', problem: 'wrong-type', media: 'video' })).toMatch(
      /^the reference video_urls\[0\] is not a video file the generator takes: send MP4 or MOV;/,
    );
    expect(reason({ kind: 'reference', problem: 'unusable', media: 'image' })).toMatch(
      /^the reference one of image_urls /,
    );
    expect(reason({ kind: 'reference', problem: 'unusable' })).toMatch(/^a reference could not be used/);
    // The upstream's words (its parameter names) stay out of the customer's reason.
    expect(reason({ kind: 'reference', problem: 'unreachable', position: 0 })).not.toMatch(
      /content\[|HTTP 404|upstream/,
    );
  });

  it('States.Timeout → a processing step timed out', () => {
    expect(describeFailure({ Error: 'States.Timeout' })).toBe('a processing step timed out');
    expect(describeFailure({ Error: 'States.Timeout', Cause: 'internal detail' })).toBe('a processing step timed out');
  });
});
