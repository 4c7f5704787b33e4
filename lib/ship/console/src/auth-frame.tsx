/** What the sign-in pages share: the frame around them, their notice and error lines, and their form. */
import type { ComponentChildren } from 'preact';
import { Form, SubmitButton } from './form.js';
import type { AUTH_ROUTES } from './router.js';
import { messageOf } from './ui.js';
import type { Action } from './ui.js';

type AuthRoute = (typeof AUTH_ROUTES)[number];

export function AuthFrame({ title, lead, children }: { title: string; lead?: string; children: ComponentChildren }) {
  return (
    <main class="auth">
      <div class="auth-brand">
        <span class="logo" aria-hidden="true">
          ▶
        </span>
        Video API console
      </div>
      <section class="card auth-card">
        <h1>{title}</h1>
        {lead && <p class="muted">{lead}</p>}
        {children}
      </section>
    </main>
  );
}

function AuthError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="note note-error" role="alert" data-testid="auth-error">
      {messageOf(error)}
    </p>
  );
}

export function Notice({ text }: { text: string | null }) {
  if (!text) return null;
  return (
    <p class="note note-info" role="status" data-testid="auth-notice">
      {text}
    </p>
  );
}

/** The link under a form to another sign-in step (test id `to-<step>`), after a line that leads to it. */
export function SwitchLink({ lead, to, label }: { lead?: string; to: AuthRoute; label: string }) {
  return (
    <p class="muted switch">
      {lead && `${lead} `}
      <a href={`#/${to}`} data-testid={`to-${to}`}>
        {label}
      </a>
    </p>
  );
}

/**
 * A sign-in step's form: its fields, the action's error, then its submit button (in a row with `beside` when
 * given). Test ids: `<step>-form` and `<step>-submit`.
 */
export function AuthForm({
  step,
  action,
  label,
  busyLabel,
  beside,
  children,
}: {
  step: string;
  action: Action;
  label: string;
  busyLabel: string;
  beside?: ComponentChildren;
  children: ComponentChildren;
}) {
  const submit = <SubmitButton busy={action.busy} label={label} busyLabel={busyLabel} testId={`${step}-submit`} />;
  return (
    <Form class="form" testId={`${step}-form`} onSubmit={() => void action.run()}>
      {children}
      <AuthError error={action.error} />
      {beside ? (
        <div class="row">
          {submit}
          {beside}
        </div>
      ) : (
        submit
      )}
    </Form>
  );
}
