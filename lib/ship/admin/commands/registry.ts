/**
 * Every admin command by name, in the order `--help` lists them. Loaded for help too, so the command files
 * import what a command needs (the AWS SDK, adapters) only when it runs (eslint.config.js enforces it).
 */
import type { Command } from '../cli/command.js';
import { ACCOUNT_COMMANDS } from './accounts.js';
import { BALANCE_COMMANDS } from './balance.js';
import { CONSOLE_USER_COMMANDS } from './console-users.js';
import { KEY_COMMANDS } from './keys.js';
import { LEDGER_COMMANDS } from './ledger.js';
import { MODEL_MARGIN_COMMANDS } from './model-margins.js';
import { MODEL_COMMANDS } from './models.js';
import { AIGC_COMMANDS } from './aigc.js';
import { TOPUP_COMMANDS } from './topups.js';
import { UPGRADE_COMMANDS } from './upgrade.js';
import { UPSTREAM_COMMANDS } from './upstream.js';
import { WEBHOOK_COMMANDS } from './webhooks.js';

export const COMMANDS: Record<string, Command> = {
  ...ACCOUNT_COMMANDS,
  ...CONSOLE_USER_COMMANDS,
  ...BALANCE_COMMANDS,
  ...LEDGER_COMMANDS,
  ...TOPUP_COMMANDS,
  ...AIGC_COMMANDS,
  ...KEY_COMMANDS,
  ...MODEL_COMMANDS,
  ...MODEL_MARGIN_COMMANDS,
  ...UPSTREAM_COMMANDS,
  ...UPGRADE_COMMANDS,
  ...WEBHOOK_COMMANDS,
};
