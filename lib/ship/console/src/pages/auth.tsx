/** Sign up (email + password → confirmation code → signed in), sign in, and the invited user's new password. */
import { useState } from 'preact/hooks';
import { AuthForm, AuthFrame, Notice, SwitchLink } from '../auth-frame.js';
import { CognitoError } from '../cognito.js';
import type { SignInResult } from '../cognito.js';
import { useServices } from '../context.js';
import { Field } from '../form.js';
import { navigate } from '../router.js';
import { useAction } from '../ui.js';

/**
 * The services a sign-in step uses, and `finish`: after a sign-in answer, keep the tokens or go to the step
 * Cognito asks for; it throws on a step the console cannot take.
 */
function useAuth() {
  const services = useServices();
  const finish = (email: string, result: SignInResult): void => {
    if (result.kind === 'signed-in') {
      services.session.set({ ...result.tokens, email });
      navigate('overview');
      return;
    }
    if (result.kind === 'new-password-required') {
      services.session.setPending({ email, challengeSession: result.session });
      navigate('new-password');
      return;
    }
    throw new Error(`This account needs a sign-in step the console does not support (${result.challenge}).`);
  };
  return { ...services, finish };
}

function EmailField({ step, value, onValue }: { step: string; value: string; onValue: (value: string) => void }) {
  return (
    <Field
      label="Email"
      type="email"
      name="email"
      autocomplete="username"
      required
      value={value}
      onValue={onValue}
      testId={`${step}-email`}
    />
  );
}

/** A password being chosen, with Cognito's rules as its hint (the pool's policy: lib/ship/cdk/console-users.ts). */
function NewPasswordField(props: {
  label: string;
  name: string;
  value: string;
  onValue: (value: string) => void;
  testId: string;
}) {
  return (
    <Field
      hint="At least 8 characters, with upper- and lower-case letters, a digit and a symbol."
      type="password"
      autocomplete="new-password"
      required
      minLength={8}
      {...props}
    />
  );
}

export function SignIn() {
  const { cognito, session, pendingPassword, finish } = useAuth();
  const [notice] = useState(() => session.takeNotice());
  const [email, setEmail] = useState(() => session.getPending()?.email ?? '');
  const [password, setPassword] = useState('');
  const action = useAction(async () => {
    try {
      finish(email.trim(), await cognito.signIn(email.trim(), password));
    } catch (caught) {
      if (!(caught instanceof CognitoError && caught.type === 'UserNotConfirmedException')) throw caught;
      pendingPassword.value = password;
      session.setPending({ email: email.trim() });
      session.setNotice(caught.message);
      navigate('confirm');
    }
  });

  return (
    <AuthFrame title="Sign in" lead="Manage your API keys, tasks, balance and webhooks.">
      <Notice text={notice} />
      <AuthForm step="signin" action={action} label="Sign in" busyLabel="Signing in…">
        <EmailField step="signin" value={email} onValue={setEmail} />
        <Field
          label="Password"
          type="password"
          name="password"
          autocomplete="current-password"
          required
          value={password}
          onValue={setPassword}
          testId="signin-password"
        />
      </AuthForm>
      <SwitchLink lead="New here?" to="signup" label="Create an account" />
    </AuthFrame>
  );
}

export function SignUp() {
  const { cognito, session, pendingPassword, finish } = useAuth();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction(async () => {
    const address = email.trim();
    const { confirmed } = await cognito.signUp(address, password);
    if (confirmed) {
      finish(address, await cognito.signIn(address, password));
      return;
    }
    pendingPassword.value = password;
    session.setPending({ email: address });
    navigate('confirm');
  });

  return (
    <AuthFrame title="Create your account" lead="Your account starts with a zero balance; top it up with a code.">
      <AuthForm step="signup" action={action} label="Create account" busyLabel="Creating…">
        <EmailField step="signup" value={email} onValue={setEmail} />
        <NewPasswordField
          label="Password"
          name="password"
          value={password}
          onValue={setPassword}
          testId="signup-password"
        />
      </AuthForm>
      <SwitchLink lead="Already have an account?" to="signin" label="Sign in" />
    </AuthFrame>
  );
}

export function Confirm() {
  const { cognito, session, pendingPassword, finish } = useAuth();
  const pending = session.getPending();
  const [notice, setNotice] = useState(() => session.takeNotice());
  const [email, setEmail] = useState(pending?.email ?? '');
  const [code, setCode] = useState('');
  const action = useAction(async () => {
    const address = email.trim();
    await cognito.confirmSignUp(address, code.trim());
    const password = pendingPassword.value;
    pendingPassword.value = null;
    if (password) {
      finish(address, await cognito.signIn(address, password));
    } else {
      session.setPending({ email: address });
      session.setNotice('Your email is confirmed. Sign in with your password.');
      navigate('signin');
    }
  });

  const resend = async () => {
    action.setError(null);
    try {
      await cognito.resendCode(email.trim());
      setNotice(`A new code is on its way to ${email.trim()}.`);
    } catch (caught) {
      action.setError(caught);
    }
  };

  return (
    <AuthFrame title="Confirm your email" lead="We sent a confirmation code to your email. Enter it here.">
      <Notice text={notice} />
      <AuthForm
        step="confirm"
        action={action}
        label="Confirm"
        busyLabel="Confirming…"
        beside={
          <button class="button" type="button" onClick={resend} disabled={!email} data-testid="confirm-resend">
            Send a new code
          </button>
        }
      >
        <EmailField step="confirm" value={email} onValue={setEmail} />
        <Field
          label="Confirmation code"
          type="text"
          name="code"
          inputMode="numeric"
          autocomplete="one-time-code"
          required
          value={code}
          onValue={setCode}
          testId="confirm-code"
        />
      </AuthForm>
      <SwitchLink to="signin" label="Back to sign in" />
    </AuthFrame>
  );
}

export function NewPassword() {
  const { cognito, session, finish } = useAuth();
  const pending = session.getPending();
  const [password, setPassword] = useState('');
  const action = useAction(async () => {
    if (!pending) return;
    let result = await cognito.setNewPassword(pending.email, password, pending.challengeSession ?? '');
    // A fresh sign-in with the new password: cognito-local does not keep the refresh token it returns from
    // RespondToAuthChallenge (REFRESH_TOKEN_AUTH would then fail); in AWS this costs one call and changes nothing.
    if (result.kind === 'signed-in') result = await cognito.signIn(pending.email, password).catch(() => result);
    finish(pending.email, result);
  });

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

  return (
    <AuthFrame
      title="Set a new password"
      lead={`You were invited as ${pending.email}. Choose the password you will sign in with.`}
    >
      <AuthForm step="new-password" action={action} label="Set password and sign in" busyLabel="Saving…">
        <NewPasswordField
          label="New password"
          name="new-password"
          value={password}
          onValue={setPassword}
          testId="new-password-input"
        />
      </AuthForm>
    </AuthFrame>
  );
}
