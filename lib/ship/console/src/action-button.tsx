/** A button that runs an action (ui.tsx's useAction): disabled and relabelled while it runs. */
import type { ComponentChildren } from 'preact';
import type { Action } from './ui.js';

export function ActionButton({
  action,
  class: className,
  label,
  busyLabel = label,
  testId,
  ariaLabel,
}: {
  action: Action;
  class: string;
  label: ComponentChildren;
  busyLabel?: ComponentChildren;
  testId: string;
  ariaLabel?: string;
}) {
  return (
    <button
      class={className}
      type="button"
      disabled={action.busy}
      onClick={() => void action.run()}
      aria-label={ariaLabel}
      data-testid={testId}
    >
      {action.busy ? busyLabel : label}
    </button>
  );
}
