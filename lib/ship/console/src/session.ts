/**
 * The signed-in session, kept in sessionStorage (gone when the tab closes; never in localStorage, never in a
 * cookie). Only Cognito's tokens and the email are kept: never a password.
 */
import type { Tokens } from './cognito.js';

export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface Session extends Tokens {
  email: string;
}

const SESSION_KEY = 'console.session';
/** The email between sign-up and confirmation, or of an invited user at the new-password step. */
const PENDING_KEY = 'console.pending';

export interface Pending {
  email: string;
  /** Cognito's challenge session for NEW_PASSWORD_REQUIRED. */
  challengeSession?: string;
}

export class SessionStore {
  private listeners = new Set<() => void>();
  /** Why the last session ended, when it was not the user's choice (shown once on the sign-in page). */
  private notice: string | null = null;

  constructor(private readonly store: KeyValueStore) {}

  get(): Session | null {
    return this.read<Session>(SESSION_KEY);
  }

  set(session: Session): void {
    this.store.setItem(SESSION_KEY, JSON.stringify(session));
    this.store.removeItem(PENDING_KEY);
    this.emit();
  }

  updateTokens(tokens: Tokens): void {
    const current = this.get();
    if (current) this.set({ ...current, ...tokens });
  }

  getPending(): Pending | null {
    return this.read<Pending>(PENDING_KEY);
  }

  setPending(pending: Pending): void {
    this.store.setItem(PENDING_KEY, JSON.stringify(pending));
  }

  /** Sign out: everything the console kept is removed. */
  clear(notice?: string): void {
    this.notice = notice ?? null;
    this.store.removeItem(SESSION_KEY);
    this.store.removeItem(PENDING_KEY);
    this.emit();
  }

  setNotice(notice: string | null): void {
    this.notice = notice;
  }

  /** The notice for the sign-in page, once. */
  takeNotice(): string | null {
    const notice = this.notice;
    this.notice = null;
    return notice;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }

  private read<T>(key: string): T | null {
    const text = this.store.getItem(key);
    if (!text) return null;
    try {
      return JSON.parse(text) as T;
    } catch {
      this.store.removeItem(key);
      return null;
    }
  }
}
