/** Region and (fake) credentials every local client uses: the emulators accept any. */
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
export const LOCAL_ACCOUNT = '000000000000';
