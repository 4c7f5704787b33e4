/**
 * Wakes an execution waiting on a task token (Step Functions `.waitForTaskToken`). Each answer returns
 * false when the token no longer waits (answered already, timed out, its execution ended): whoever woke it
 * first won, and the waiting step checks again by itself when it next starts.
 */
export interface TaskWaker {
  succeed(token: string, output: unknown): Promise<boolean>;
  fail(token: string, error: string, cause: string): Promise<boolean>;
}
