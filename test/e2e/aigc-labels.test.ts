/**
 * Every delivered video carries China's implicit AI-content label (docs/compliance.md, "The implicit label"): a
 * task's file as stored holds the AIGC JSON naming the upstream's job and our task, the task view reports it, and
 * ffprobe reads it with the video stream byte-identical to the upstream's (skipped without ffprobe).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readAigcLabel } from '../../functions/core/mp4-label/index.js';
import { runAdmin } from '../../lib/ship/admin/cli.js';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';
import { sharedStack } from '../support/shared-stack.js';
import { callApi, newAccount, pollUntil } from '../support/test-stack.js';

const stack = sharedStack();
const hasFfprobe = !spawnSync('ffprobe', ['-version']).error && !spawnSync('ffmpeg', ['-version']).error;
const dir = mkdtempSync(join(tmpdir(), 'vgs-aigc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Task {
  task_id: string;
  status: string;
  video_url: string | null;
  aigc: { content_producer: string; produce_id: string; content_propagator: string; propagate_id: string } | null;
}

async function delivered(prompt: string): Promise<{ task: Task; bytes: Buffer }> {
  const { key } = await newAccount(stack, '20');
  const submitted = await callApi<{ task_id: string }>(stack, 'POST', '/api/v1/video/generate', {
    key,
    body: { model: 'seedance-1.5-pro', prompt, duration: 5 },
  });
  expect(submitted.status).toBe(200);
  const id = submitted.body.data.task_id;
  const done = await pollUntil(
    async () => (await callApi<Task>(stack, 'GET', `/api/v1/video/tasks/${id}`, { key })).body.data,
    (task) => task.status === 'success',
  );
  const response = await fetch(done.video_url!);
  return { task: done, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('the AI-content label of a delivered video', () => {
  it('names the upstream job and our task, differs per task, and the task view reports it', async () => {
    const [first, second] = await Promise.all([delivered('a lantern on a lake'), delivered('a kite over a field')]);
    for (const { task, bytes } of [first, second]) {
      const label = readAigcLabel(bytes);
      expect(label?.Label).toBe('1');
      expect(label?.PropagateID).toBe(task.task_id);
      expect(label?.ProduceID).toMatch(/\S/);
      expect(task.aigc).toEqual({
        content_producer: label?.ContentProducer,
        produce_id: label?.ProduceID,
        content_propagator: label?.ContentPropagator,
        propagate_id: task.task_id,
      });
    }
    expect(first.task.aigc?.produce_id).not.toBe(second.task.aigc?.produce_id);
    // The operator's reader says the same of the file.
    const file = join(dir, 'first.mp4');
    writeFileSync(file, first.bytes);
    const out: string[] = [];
    const code = await runAdmin(['aigc:inspect', '--file', file], { out: (line) => out.push(line), err: () => {} });
    expect(code).toBe(0);
    expect(JSON.parse(out.join('\n'))).toMatchObject({ Label: '1', PropagateID: first.task.task_id });
  });

  it.skipIf(!hasFfprobe)('shows in ffprobe -show_format, the video stream identical to the upstream file', async () => {
    const { task, bytes } = await delivered('a heron in reeds');
    const file = join(dir, 'delivered.mp4');
    writeFileSync(file, bytes);
    const tags = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_format', '-of', 'json', file]).toString())
      .format.tags as Record<string, string>;
    expect(JSON.parse(tags['AIGC'] ?? '{}')).toMatchObject({ Label: '1', PropagateID: task.task_id });
    const md5 = (path: string) =>
      execFileSync('ffmpeg', ['-v', 'error', '-i', path, '-map', '0:v', '-c', 'copy', '-f', 'md5', '-']).toString();
    // The simulator serves this file as the upstream's video.
    const upstream = join(REPOSITORY_ROOT, 'lib/dev/fixtures/sample.mp4');
    expect(md5(file)).toBe(md5(upstream));
    expect(readFileSync(upstream).length).toBeLessThan(bytes.length);
  });
});
