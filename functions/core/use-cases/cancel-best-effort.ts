/** The lifecycle steps' cancel of an upstream job that no task will collect (StartUpstream's orphan, FailAndRefund's). */
import type { VideoProvider } from '../ports/video-provider.js';

/**
 * Cancels a job no task will collect. `report` hears of a job that goes on to bill (it was running or had
 * succeeded: Ark bills successes) and of a cancel that could not be sent; never thrown, as the task's own
 * outcome is already decided.
 */
export async function cancelBestEffort(
  provider: VideoProvider,
  jobId: string,
  account: string,
  report: (error: unknown) => void,
) {
  try {
    const result = await provider.cancelJob(jobId, account);
    if (result.outcome === 'refused' && result.state !== 'failed') {
      report(new Error(`upstream job ${jobId} is ${result.state}: it could not be cancelled and may be billed`));
    }
  } catch (error) {
    report(error);
  }
}
