/** The Step Functions client, one per process. */
import { SFNClient } from '@aws-sdk/client-sfn';

let client: SFNClient | undefined;

export function sfnClient(): SFNClient {
  client ??= new SFNClient({});
  return client;
}
