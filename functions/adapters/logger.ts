/** One structured JSON logger per process (Powertools); the level comes from POWERTOOLS_LOG_LEVEL. */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: 'video-generation' });
