/**
 * Child entry: fauxqs (the local S3) on its own, file-backed under the directory in BENCH_S3_DIR, so that
 * its memory (it holds multipart parts in memory until the upload completes) stays out of the process
 * whose memory the transfer bench measures.
 */
import { startS3AndSqs } from '../local/emulators.js';
import { sendToParent } from './child.js';

const s3 = await startS3AndSqs(process.env['BENCH_S3_DIR']);
sendToParent({ type: 'ready', endpoint: s3.endpoint });
process.on('SIGTERM', () => void s3.stop().then(() => process.exit(0)));
