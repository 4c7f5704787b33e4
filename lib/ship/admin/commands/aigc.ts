/** aigc:inspect: the AI-content label an MP4 carries, or the one a task recorded (docs/compliance.md). */
import type { Command } from '../cli/command.js';
import { UsageError } from '../errors.js';

export const AIGC_COMMANDS: Record<string, Command> = {
  'aigc:inspect': {
    args: '--file PATH | --task ID',
    summary: "print the AI-content label (AIGC) an MP4 file carries, or the one a delivered task's video recorded",
    details:
      'With --file, reads the label from the file (any MP4, ours or not): its JSON, or "no AIGC label". With\n' +
      "--task, the label the task recorded when its video was stored (the task view's aigc).",
    options: ['file', 'task'],
    async run(args, open, output) {
      const file = args.optional('file');
      const task = args.optional('task');
      if ((file === undefined) === (task === undefined)) throw new UsageError('aigc:inspect takes --file or --task');
      if (file !== undefined) {
        const [{ createReadStream }, { readAigcLabelFromStream }] = await Promise.all([
          import('node:fs'),
          import('../../../../functions/core/mp4-label/index.js'),
        ]);
        const label = await readAigcLabelFromStream(createReadStream(file));
        output.out(label ? JSON.stringify(label, null, 2) : 'no AIGC label');
        return label ? 0 : 1;
      }
      const session = await open();
      const record = await session.store.taskRecord(task!);
      if (!record) throw new UsageError(`task ${task} does not exist`);
      output.out(
        record.aigc ? JSON.stringify(record.aigc, null, 2) : `no label recorded (the task is ${record.status})`,
      );
      return record.aigc ? 0 : 1;
    },
  },
};
