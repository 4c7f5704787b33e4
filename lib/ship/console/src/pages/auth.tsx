/** Sign up (email + password → confirmation code → signed in), sign in, and the invited user's new password. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { CognitoError } from '../cognito.js';
import type { SignInResult } from '../cognito.js';
import { useServices } from '../context.js';
import { navigate } from '../router.js';
import { messageOf } from '../ui.js';

function AuthFrame({ title, lead, children }: { title: string; lead?: string; children: ComponentChildren }) {
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

function Notice({ text }: { text: string | null }) {
  if (!text) return null;
  return (
    <p class="note note-info" role="status" data-testid="auth-notice">
      {text}
    </p>
  );
}

/** After a sign-in answer: keep the tokens, or go to the step Cognito asks for. */
function useFinishSignIn() {
  const { session } = useServices();
  return (email: string, result: SignInResult): string | null => {
    if (result.kind === 'signed-in') {
      session.set({ ...result.tokens, email });
      navigate('overview');
      return null;
    }
    if (result.kind === 'new-password-required') {
      session.setPending({ email, challengeSession: result.session });
      navigate('new-password');
      return null;
    }
    return `This account needs a sign-in step the console does not support (${result.challenge}).`;
  };
}

export function SignIn() {
  const { cognito, session, pendingPassword } = useServices();
  const finish = useFinishSignIn();
  const [notice] = useState(() => session.takeNotice());
  const [email, setEmail] = useState(() => session.getPending()?.email ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const problem = finish(email.trim(), await cognito.signIn(email.trim(), password));
      if (problem) setError(new Error(problem));
    } catch (caught) {
      if (caught instanceof CognitoError && caught.type === 'UserNotConfirmedException') {
        pendingPassword.value = password;
        session.setPending({ email: email.trim() });
        session.setNotice(caught.message);
        navigate('confirm');
        return;
      }
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame title="Sign in" lead="Manage your API keys, tasks, balance and webhooks.">
      <Notice text={notice} />
      <form class="form" onSubmit={submit} data-testid="signin-form">
        <label>
          Email
          <input
            type="email"
            name="email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
            data-testid="signin-email"
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            data-testid="signin-password"
          />
        </label>
        <AuthError error={error} />
        <button class="button primary" type="submit" disabled={busy} data-testid="signin-submit">
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="muted switch">
        New here?{' '}
        <a href="#/signup" data-testid="to-signup">
          Create an account
        </a>
      </p>
    </AuthFrame>
  );
}

export function SignUp() {
  const { cognito, session, pendingPassword } = useServices();
  const finish = useFinishSignIn();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const address = email.trim();
    try {
      const { confirmed } = await cognito.signUp(address, password);
      if (confirmed) {
        const problem = finish(address, await cognito.signIn(address, password));
        if (problem) setError(new Error(problem));
        return;
      }
      pendingPassword.value = password;
      session.setPending({ email: address });
      navigate('confirm');
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame title="Create your account" lead="Your account starts with a zero balance; top it up with a code.">
      <form class="form" onSubmit={submit} data-testid="signup-form">
        <label>
          Email
          <input
            type="email"
            name="email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
            data-testid="signup-email"
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autocomplete="new-password"
            required
            minLength={8}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            data-testid="signup-password"
          />
          <span class="hint">At least 8 characters, with upper- and lower-case letters, a digit and a symbol.</span>
        </label>
        <AuthError error={error} />
        <button class="button primary" type="submit" disabled={busy} data-testid="signup-submit">
          {busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <p class="muted switch">
        Already have an account?{' '}
        <a href="#/signin" data-testid="to-signin">
          Sign in
        </a>
      </p>
    </AuthFrame>
  );
}

export function Confirm() {
  const { cognito, session, pendingPassword } = useServices();
  const finish = useFinishSignIn();
  const pending = session.getPending();
  const [notice, setNotice] = useState(() => session.takeNotice());
  const [email, setEmail] = useState(pending?.email ?? '');
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const address = email.trim();
    try {
      await cognito.confirmSignUp(address, code.trim());
      const password = pendingPassword.value;
      pendingPassword.value = null;
      if (password) {
        const problem = finish(address, await cognito.signIn(address, password));
        if (problem) setError(new Error(problem));
      } else {
        session.setPending({ email: address });
        session.setNotice('Your email is confirmed. Sign in with your password.');
        navigate('signin');
      }
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const resend = async () => {
    setError(null);
    try {
      await cognito.resendCode(email.trim());
      setNotice(`A new code is on its way to ${email.trim()}.`);
    } catch (caught) {
      setError(caught);
    }
  };

  return (
    <AuthFrame title="Confirm your email" lead="We sent a confirmation code to your email. Enter it here.">
      <Notice text={notice} />
      <form class="form" onSubmit={submit} data-testid="confirm-form">
        <label>
          Email
          <input
            type="email"
            name="email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
            data-testid="confirm-email"
          />
        </label>
        <label>
          Confirmation code
          <input
            type="text"
            name="code"
            inputMode="numeric"
            autocomplete="one-time-code"
            required
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
            data-testid="confirm-code"
          />
        </label>
        <AuthError error={error} />
        <div class="row">
          <button class="button primary" type="submit" disabled={busy} data-testid="confirm-submit">
            {busy ? 'Confirming…' : 'Confirm'}
          </button>
          <button class="button" type="button" onClick={resend} disabled={!email} data-testid="confirm-resend">
            Send a new code
          </button>
        </div>
      </form>
      <p class="muted switch">
        <a href="#/signin" data-testid="to-signin">
          Back to sign in
        </a>
      </p>
    </AuthFrame>
  );
}

export function NewPassword() {
  const { cognito, session } = useServices();
  const finish = useFinishSignIn();
  const pending = session.getPending();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  if (!pending?.challengeSession) {
    return (
      <AuthFrame title="Set a new password">
        <p class="note note-info" data-testid="new-password-missing">
          Sign in with the temporary password from your invitation first.
        </p>
        <a class="button" href="#/signin" data-testid="to-signin">
          Sign in
        </a>
      </AuthFrame>
    );
  }

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      let result = await cognito.setNewPassword(pending.email, password, pending.challengeSession ?? '');
      // A fresh sign-in with the new password: cognito-local does not keep the refresh token it returns from
      // RespondToAuthChallenge (REFRESH_TOKEN_AUTH would then fail); in AWS this costs one call and changes nothing.
      if (result.kind === 'signed-in') result = await cognito.signIn(pending.email, password).catch(() => result);
      const problem = finish(pending.email, result);
      if (problem) setError(new Error(problem));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame
      title="Set a new password"
      lead={`You were invited as ${pending.email}. Choose the password you will sign in with.`}
    >
      <form class="form" onSubmit={submit} data-testid="new-password-form">
        <label>
          New password
          <input
            type="password"
            name="new-password"
            autocomplete="new-password"
            required
            minLength={8}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            data-testid="new-password-input"
          />
          <span class="hint">At least 8 characters, with upper- and lower-case letters, a digit and a symbol.</span>
        </label>
        <AuthError error={error} />
        <button class="button primary" type="submit" disabled={busy} data-testid="new-password-submit">
          {busy ? 'Saving…' : 'Set password and sign in'}
        </button>
      </form>
    </AuthFrame>
  );
}
