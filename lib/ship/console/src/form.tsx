/** Form parts every page uses: a form that submits without reloading, a labelled field, the submit button. */
import type { ComponentChildren, InputHTMLAttributes, PartialInputHTMLAttributes } from 'preact';

/** A form whose submit runs `onSubmit` in place of loading a page. */
export function Form({
  class: className,
  testId,
  onSubmit,
  children,
}: {
  class: string;
  testId: string;
  onSubmit: () => void;
  children: ComponentChildren;
}) {
  return (
    <form
      class={className}
      data-testid={testId}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** The input's own attributes that the pages set. */
type InputProps = Pick<
  PartialInputHTMLAttributes<HTMLInputElement>,
  | 'name'
  | 'required'
  | 'autocomplete'
  | 'inputMode'
  | 'spellcheck'
  | 'placeholder'
  | 'minLength'
  | 'maxLength'
  | 'min'
  | 'max'
  | 'disabled'
>;

/** A labelled text input, its hint under it. */
export function Field({
  label,
  hint,
  value,
  onValue,
  testId,
  type,
  ...input
}: InputProps & {
  label: string;
  hint?: string;
  type: 'text' | 'email' | 'password' | 'url';
  value: string;
  onValue: (value: string) => void;
  testId: string;
}) {
  return (
    <label>
      {label}
      <input
        // Preact types an input's attributes per `type`; a `type` known only as one of four is not narrowed.
        {...({ type, ...input } as InputHTMLAttributes<HTMLInputElement>)}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        data-testid={testId}
      />
      {hint && <span class="hint">{hint}</span>}
    </label>
  );
}

/** A labelled whole-number input (`type="number"`, step 1), its hint under it. */
export function NumberField({
  label,
  hint,
  value,
  onValue,
  testId,
  ...input
}: InputProps & { label: string; hint?: string; value: number; onValue: (value: number) => void; testId: string }) {
  return (
    <label>
      {label}
      <input
        type="number"
        {...input}
        step={1}
        value={value}
        onInput={(e) => onValue(Number(e.currentTarget.value))}
        data-testid={testId}
      />
      {hint && <span class="hint">{hint}</span>}
    </label>
  );
}

/** The primary submit button: disabled and relabelled while its action runs. */
export function SubmitButton({
  busy,
  disabled = busy,
  label,
  busyLabel = label,
  testId,
}: {
  busy: boolean;
  disabled?: boolean;
  label: string;
  busyLabel?: string;
  testId: string;
}) {
  return (
    <button class="button primary" type="submit" disabled={disabled} data-testid={testId}>
      {busy ? busyLabel : label}
    </button>
  );
}
