/**
 * The `sam local` synthesis (`-c samLocal=true`, never deployed): SAM gives a function only the variables
 * its template declares (aws-sam-cli #1553, #6145), so this one also declares, empty, every variable the
 * local stack gives the handlers, for env.json (lib/dev/local/sam-env.ts) to fill in. Empty reads as unset to
 * functions/adapters/runtime/config.ts and to the AWS SDK.
 */
import { samLocalVariables } from '../sam-local/sam-variables.js';

export const SAM_LOCAL_CONTEXT = 'samLocal';

type Template = { Resources?: Record<string, { Type: string; Properties?: Record<string, unknown> }> };

/** The rendered template with each function declaring every `samLocalVariables()` name it lacks, as "". */
export function withSamLocalVariables<T extends Template>(template: T): T {
  const names = samLocalVariables();
  for (const resource of Object.values(template.Resources ?? {})) {
    if (resource.Type !== 'AWS::Lambda::Function' || !resource.Properties) continue;
    const environment = (resource.Properties['Environment'] ??= { Variables: {} }) as {
      Variables: Record<string, unknown>;
    };
    for (const name of names) if (!(name in environment.Variables)) environment.Variables[name] = '';
  }
  return template;
}
