/** Display helpers. Amounts arrive in yuan with at most 4 decimals; they are shown exactly, never rounded. */

export function yuan(amount: number | null | undefined): string {
  if (amount === null || amount === undefined || !Number.isFinite(amount)) return '—';
  const sign = amount < 0 ? '−' : '';
  const text = Math.abs(amount).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 });
  return `${sign}¥${text}`;
}

/** A time as the reader's clock shows it, with its zone (`UTC+8`), so it compares with the API's ISO times. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString('en-GB', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  });
}

/** The base URL of the public API as a customer would call it (for the examples). */
export function publicBase(apiBase: string): string {
  if (apiBase) return apiBase.replace(/\/$/, '');
  return typeof location === 'undefined' ? 'https://api.example.com' : location.origin;
}

export function curlExample(apiBase: string, model = 'seedance-1.5-pro'): string {
  return (
    `curl -X POST ${publicBase(apiBase)}/api/v1/video/generate -H "Authorization: Bearer $KEY" ` +
    `-H 'Content-Type: application/json' -d '{"model":"${model}","prompt":"a red fox in the snow","duration":5}'`
  );
}

/** The API's own status names (GET /api/v1/video/tasks), so what the console shows is what the API answers. */
export const STATUS_LABELS: Record<string, string> = {
  pending: 'pending',
  running: 'running',
  transferring: 'transferring',
  success: 'success',
  failed: 'failed',
  refunded: 'refunded',
};

export const TRANSACTION_LABELS: Record<string, string> = {
  charge: 'Task charge',
  refund: 'Refund',
  topup: 'Top-up',
  adjustment: 'Adjustment',
};
