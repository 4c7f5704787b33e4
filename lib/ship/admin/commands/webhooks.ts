/** The webhook secret commands: show an account's signing secret, or rotate it. */
import type { Command } from '../cli/command.js';

export const WEBHOOK_COMMANDS: Record<string, Command> = {
  'webhook:secret': {
    args: '--account ID',
    summary: "the account's webhook signing secret (whsec_…, alone on the last line)",
    details: 'Created if the account has none yet.',
    options: ['account'],
    async run(args, open, output) {
      const id = args.required('account');
      const { store, where } = await open();
      const secret = await store.webhookSecret(id);
      output.err(`webhook signing secret of account ${id} (Standard Webhooks, ${where}):`);
      output.out(secret);
    },
  },
  'webhook:rotate': {
    args: '--account ID',
    summary: 'a new webhook secret (alone on the last line); the old one also signs for 24 h',
    options: ['account'],
    async run(args, open, output) {
      const id = args.required('account');
      const { secret, previousUntil } = await (await open()).store.rotateWebhookSecret(id);
      output.err(
        previousUntil
          ? `rotated; the previous secret also signs until ${previousUntil}. New secret:`
          : 'the account had no secret; created:',
      );
      output.out(secret);
    },
  },
};
