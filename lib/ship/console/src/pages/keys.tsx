import { useState } from 'preact/hooks';
import type { ApiKey } from '../api.js';
import { useServices } from '../context.js';
import { curlExample, dateTime, yuan } from '../format.js';
import { ActionButton } from '../action-button.js';
import { Field, Form, SubmitButton } from '../form.js';
import { Card, Empty, ErrorNote, Loading, useAction, useLoad } from '../ui.js';

/** "" → null (no quota); otherwise a non-negative amount in yuan with at most 4 decimals. */
function parseQuota(text: string): number | null | Error {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!/^\d{1,11}(\.\d{1,4})?$/.test(trimmed)) return new Error('The quota is an amount in yuan, e.g. 50 or 12.5.');
  return Number(trimmed);
}

function parseRate(text: string): number | undefined | Error {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (!/^\d{1,6}$/.test(trimmed) || Number(trimmed) < 1) {
    return new Error('The rate limit is a whole number of requests per second, at least 1.');
  }
  return Number(trimmed);
}

export function Keys() {
  const { api } = useServices();
  const keys = useLoad(() => api.keys());
  const [created, setCreated] = useState<(ApiKey & { key: string }) | null>(null);

  const replace = (key: ApiKey) => {
    if (keys.data) keys.setData({ items: keys.data.items.map((k) => (k.key_id === key.key_id ? key : k)) });
  };

  return (
    <>
      <h1>API keys</h1>
      <p class="muted">
        Each key calls the public API with <code>Authorization: Bearer bc_…</code>. A quota caps what a key may spend; a
        disabled key is refused at once.
      </p>
      <CreateKey
        onCreated={(key) => {
          setCreated(key);
          const { key: _plaintext, ...view } = key;
          keys.setData({ items: [view, ...(keys.data?.items ?? [])] });
        }}
      />
      {created && <NewKey created={created} onDismiss={() => setCreated(null)} />}
      <Card title="Your keys">
        <ErrorNote error={keys.error} />
        {keys.loading && !keys.data && <Loading />}
        {keys.data && keys.data.items.length === 0 && (
          <Empty testId="keys-empty">
            <p>No keys yet — create one above to start calling the API.</p>
          </Empty>
        )}
        {keys.data && keys.data.items.length > 0 && (
          <ul class="keys" data-testid="key-list">
            {inListOrder(keys.data.items)
              .filter((key) => key.status !== 'deleted')
              .map((key) => (
                <KeyRow key={key.key_id} apiKey={key} onChanged={replace} />
              ))}
          </ul>
        )}
      </Card>
      {keys.data && keys.data.items.some((key) => key.status === 'deleted') && (
        <Card title="Deleted keys">
          <p class="muted">Revoked for good. Their spend, tasks and ledger entries are kept.</p>
          <ul class="keys" data-testid="deleted-key-list">
            {inListOrder(keys.data.items)
              .filter((key) => key.status === 'deleted')
              .map((key) => (
                <li class="key" key={key.key_id} data-testid="deleted-key-row" data-key-id={key.key_id}>
                  <div class="key-head">
                    <strong class="key-name">{keyLabel(key)}</strong>
                    <span class="mono" data-testid="key-hint">
                      {key.key_hint}
                    </span>
                  </div>
                  <div class="key-meta muted">
                    <span>{yuan(key.spent)} spent</span>
                    <span>Deleted {key.deleted_at ? dateTime(key.deleted_at) : ''}</span>
                    <a href={`#/tasks?key=${encodeURIComponent(key.key_id)}`} data-testid="key-tasks-link">
                      Its tasks
                    </a>
                  </div>
                </li>
              ))}
          </ul>
        </Card>
      )}
    </>
  );
}

function CreateKey({ onCreated }: { onCreated: (key: ApiKey & { key: string }) => void }) {
  const { api } = useServices();
  const [name, setName] = useState('');
  const [quota, setQuota] = useState('');
  const [rate, setRate] = useState('');
  const action = useAction(async () => {
    const parsedQuota = parseQuota(quota);
    if (parsedQuota instanceof Error) throw parsedQuota;
    const parsedRate = parseRate(rate);
    if (parsedRate instanceof Error) throw parsedRate;
    const key = await api.createKey({
      name: name.trim(),
      quota: parsedQuota,
      ...(parsedRate === undefined ? {} : { rate_limit_per_second: parsedRate }),
    });
    setName('');
    setQuota('');
    setRate('');
    onCreated(key);
  });

  return (
    <Card title="Create a key">
      <Form class="form grid" testId="key-create-form" onSubmit={() => void action.run()}>
        <Field
          label="Name"
          type="text"
          name="name"
          required
          maxLength={100}
          placeholder="production"
          value={name}
          onValue={setName}
          testId="key-name"
        />
        <Field
          label="Quota (CNY)"
          hint="Blank for no limit."
          type="text"
          name="quota"
          inputMode="decimal"
          placeholder="no limit"
          value={quota}
          onValue={setQuota}
          testId="key-quota"
        />
        <Field
          label="Rate limit (requests/s)"
          hint="Blank for the default."
          type="text"
          name="rate"
          inputMode="numeric"
          placeholder="default"
          value={rate}
          onValue={setRate}
          testId="key-rate"
        />
        <div class="form-end">
          <SubmitButton busy={action.busy} label="Create key" busyLabel="Creating…" testId="key-create-submit" />
        </div>
      </Form>
      <ErrorNote error={action.error} testId="key-create-error" />
    </Card>
  );
}

/** The plaintext key, shown once. */
function NewKey({ created, onDismiss }: { created: ApiKey & { key: string }; onDismiss: () => void }) {
  const { config } = useServices();
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <section class="card new-key" data-testid="new-key" role="region" aria-label="Your new API key">
      <h2>Your new key “{created.name}”</h2>
      <p class="note note-warning" data-testid="new-key-warning">
        Copy it now and keep it somewhere safe: <strong>you will not see it again.</strong>
      </p>
      <div class="copy-row">
        <input
          class="mono"
          type="text"
          readOnly
          value={created.key}
          aria-label="New API key"
          onFocus={(e) => e.currentTarget.select()}
          data-testid="new-key-value"
        />
        <button class="button primary" type="button" onClick={copy} data-testid="new-key-copy">
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
      </div>
      {copied === 'yes' && (
        <p class="muted" role="status" data-testid="new-key-copied">
          Copied to the clipboard.
        </p>
      )}
      {copied === 'failed' && (
        <p class="note note-error" role="alert" data-testid="new-key-copy-failed">
          The browser refused the clipboard: select the key and copy it by hand.
        </p>
      )}
      <p class="muted">Try it:</p>
      <pre class="code">{curlExample(config.apiBase).replace('$KEY', created.key)}</pre>
      <button class="button" type="button" onClick={onDismiss} data-testid="new-key-dismiss">
        I have saved it
      </button>
    </section>
  );
}

function KeyRow({ apiKey, onChanged }: { apiKey: ApiKey; onChanged: (key: ApiKey) => void }) {
  const { api } = useServices();
  const [editing, setEditing] = useState<'quota' | 'name' | null>(null);
  const [quota, setQuota] = useState(apiKey.quota === null ? '' : String(apiKey.quota));
  const [name, setName] = useState(apiKey.name);
  const toggle = useAction(async () => {
    // Disabling refuses the key's very next call: asked first. Enabling again is harmless.
    const sure =
      apiKey.status !== 'active' ||
      window.confirm(`Disable ${keyLabel(apiKey)}? Every call with it is refused from now on, until you enable it.`);
    if (!sure) return;
    onChanged(await api.updateKey(apiKey.key_id, { status: apiKey.status === 'active' ? 'disabled' : 'active' }));
  });
  const remove = useAction(async () => {
    const sure = window.confirm(
      `Delete ${keyLabel(apiKey)} (${apiKey.key_hint})? It is revoked for good: no call with it works again. Its tasks and spend are kept.`,
    );
    if (!sure) return;
    onChanged(await api.deleteKey(apiKey.key_id));
  });
  const save = useAction(async () => {
    if (editing === 'name') {
      if (name.trim() === '') throw new Error('A key needs a name.');
      onChanged(await api.updateKey(apiKey.key_id, { name: name.trim() }));
    } else {
      const parsed = parseQuota(quota);
      if (parsed instanceof Error) throw parsed;
      onChanged(await api.updateKey(apiKey.key_id, { quota: parsed }));
    }
    setEditing(null);
  });
  const share = apiKey.quota ? Math.min(1, apiKey.spent / apiKey.quota) : 0;

  return (
    <li class="key" data-testid="key-row" data-key-id={apiKey.key_id} data-status={apiKey.status}>
      <div class="key-head">
        <strong class="key-name" data-testid="key-name-label">
          {keyLabel(apiKey)}
        </strong>
        <span class="mono" data-testid="key-hint" title="The start and end of the key">
          {apiKey.key_hint}
        </span>
        <span class={`badge badge-${apiKey.status}`} data-testid="key-status">
          {apiKey.status === 'active' ? 'Active' : 'Disabled'}
        </span>
      </div>
      <div class="key-spend">
        <span data-testid="key-spent">
          {yuan(apiKey.spent)} spent {apiKey.quota === null ? '· no quota' : `of ${yuan(apiKey.quota)}`}
        </span>
        {apiKey.quota !== null && (
          <progress
            max={1}
            value={share}
            aria-label={`Quota used: ${Math.round(share * 100)}%`}
            data-testid="key-quota-bar"
          />
        )}
      </div>
      {apiKey.quota !== null && share >= 1 && (
        <p class="note note-error" role="alert" data-testid="key-quota-warning" data-level="100">
          Quota reached: this key's submits are refused until you raise its quota.
        </p>
      )}
      {apiKey.quota !== null && share >= 0.8 && share < 1 && (
        <p class="note" role="status" data-testid="key-quota-warning" data-level="80">
          {Math.floor(share * 100)} % of this key's quota is spent.
        </p>
      )}
      <div class="key-meta muted">
        <span data-testid="key-rate-label">
          {apiKey.rate_limit_per_second} requests/s{apiKey.rate_is_default ? ' (the default)' : ''}
        </span>
        <span>Created {dateTime(apiKey.created_at)}</span>
        <span data-testid="key-last-used">
          {apiKey.last_used_at ? `Last used ${dateTime(apiKey.last_used_at)}` : 'Never used'}
        </span>
        <a href={`#/tasks?key=${encodeURIComponent(apiKey.key_id)}`} data-testid="key-tasks-link">
          Its tasks
        </a>
      </div>
      {editing === 'quota' && (
        <Form class="form inline" testId="key-quota-form" onSubmit={() => void save.run()}>
          <Field
            label="New quota (CNY)"
            type="text"
            inputMode="decimal"
            placeholder="no limit"
            value={quota}
            onValue={setQuota}
            testId="key-quota-input"
          />
          <SubmitButton busy={save.busy} label="Save quota" testId="key-quota-save" />
          <button class="button" type="button" onClick={() => setEditing(null)} data-testid="key-quota-cancel">
            Cancel
          </button>
        </Form>
      )}
      {editing === 'name' && (
        <Form class="form inline" testId="key-rename-form" onSubmit={() => void save.run()}>
          <Field label="New name" type="text" maxLength={64} value={name} onValue={setName} testId="key-rename-input" />
          <SubmitButton busy={save.busy} label="Save name" testId="key-rename-save" />
          <button class="button" type="button" onClick={() => setEditing(null)} data-testid="key-rename-cancel">
            Cancel
          </button>
        </Form>
      )}
      {editing === null && (
        <div class="row">
          <ActionButton
            action={toggle}
            class={`button ${apiKey.status === 'active' ? 'danger' : ''}`}
            label={apiKey.status === 'active' ? 'Disable' : 'Enable'}
            ariaLabel={`${apiKey.status === 'active' ? 'Disable' : 'Enable'} key ${apiKey.name}`}
            testId="key-toggle"
          />
          <button
            class="button"
            type="button"
            onClick={() => setEditing('quota')}
            aria-label={`Change the quota of key ${apiKey.name}`}
            data-testid="key-quota-edit"
          >
            Change quota
          </button>
          <button
            class="button"
            type="button"
            onClick={() => setEditing('name')}
            aria-label={`Rename key ${apiKey.name}`}
            data-testid="key-rename"
          >
            Rename
          </button>
          <ActionButton
            action={remove}
            class="button danger"
            label="Delete"
            ariaLabel={`Delete key ${apiKey.name}`}
            testId="key-delete"
          />
        </div>
      )}
      <ErrorNote error={toggle.error ?? save.error ?? remove.error} testId="key-error" />
    </li>
  );
}

/** Newest first, then by id: the same order on every load, whatever order the API answered in. */
export function inListOrder(keys: ApiKey[]): ApiKey[] {
  return [...keys].sort((a, b) => b.created_at.localeCompare(a.created_at) || a.key_id.localeCompare(b.key_id));
}

/** A key's name; one made without a name (its name is then its id) is called by its creation date. */
export function keyLabel(key: ApiKey): string {
  return key.name && key.name !== key.key_id ? key.name : `Unnamed key of ${dateTime(key.created_at)}`;
}
