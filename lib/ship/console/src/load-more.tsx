/**
 * The foot of a paged list: why the next page failed, and the button that loads it while there is one. Test
 * ids: `<testId>-more-error` and `<testId>-load-more`.
 */
import { ActionButton } from './action-button.js';
import { ErrorNote } from './ui.js';
import type { Action } from './ui.js';

export function LoadMore({
  more,
  cursor,
  testId,
}: {
  more: Action;
  cursor: string | null | undefined;
  testId: string;
}) {
  return (
    <>
      <ErrorNote error={more.error} testId={`${testId}-more-error`} />
      {cursor && (
        <ActionButton
          action={more}
          class="button wide"
          label="Load more"
          busyLabel="Loading…"
          testId={`${testId}-load-more`}
        />
      )}
    </>
  );
}
