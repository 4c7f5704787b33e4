import { useEffect, useState } from 'preact/hooks';
import type { ModelView } from '../api.js';
import { useServices } from '../context.js';
import { yuan } from '../format.js';
import { NumberField } from '../form.js';
import { estimateYuan } from '../pricing.js';
import { Card, Empty, ErrorNote, Loading, useLoad } from '../ui.js';

export function Models() {
  const { api } = useServices();
  const models = useLoad(() => api.models());
  const list = models.data ?? [];

  return (
    <>
      <h1>Models and prices</h1>
      <ErrorNote error={models.error} />
      {models.loading && !models.data && <Loading />}
      {models.data && list.length === 0 && (
        <Empty testId="models-empty">
          <p>No models are available right now.</p>
        </Empty>
      )}
      {list.length > 0 && <Calculator models={list} />}
      <div class="models">
        {list.map((model) => (
          <ModelCard key={model.id} model={model} />
        ))}
      </div>
    </>
  );
}

function ModelCard({ model }: { model: ModelView }) {
  const p = model.pricing;
  const multipliers = model.supported_resolutions
    .map((resolution) => `${resolution} ×${p.resolution_multipliers[resolution]}`)
    .join(' · ');
  return (
    <section class="card model" data-testid="model-card" data-model={model.name}>
      <div class="card-head">
        <h2>{model.display_name}</h2>
        {model.status !== 'active' && <span class="badge badge-disabled">inactive</span>}
      </div>
      <p class="mono small">{model.name}</p>
      {model.description && <p class="muted">{model.description}</p>}
      <dl class="prices">
        {model.billing_mode === 'per_call' ? (
          <>
            <dt>Per call</dt>
            <dd>
              {yuan(p.price_per_call)} × quality {p.quality_multiplier}
            </dd>
          </>
        ) : (
          <>
            <dt>Per second</dt>
            <dd>{yuan(p.price_per_second)}</dd>
          </>
        )}
        <dt>Resolutions</dt>
        <dd>{multipliers || '—'}</dd>
        <dt>Duration</dt>
        <dd>
          {model.capabilities.duration.fixed
            ? `${model.capabilities.duration.min} s (fixed)`
            : `${model.capabilities.duration.min}–${model.capabilities.duration.max} s`}
        </dd>
        {p.audio_extra > 0 && (
          <>
            <dt>Sound</dt>
            <dd>+{yuan(p.audio_extra)} per task</dd>
          </>
        )}
        {p.material_surcharge > 0 && (
          <>
            <dt>Reference video/audio</dt>
            <dd>+{yuan(p.material_surcharge)} each</dd>
          </>
        )}
      </dl>
    </section>
  );
}

function Calculator({ models }: { models: ModelView[] }) {
  const active = models.filter((model) => model.status === 'active');
  const choices = active.length > 0 ? active : models;
  const [name, setName] = useState(choices[0]?.name ?? '');
  const model = choices.find((m) => m.name === name) ?? choices[0];
  const [resolution, setResolution] = useState('');
  const [duration, setDuration] = useState(5);
  const [audio, setAudio] = useState(true);
  const [videos, setVideos] = useState(0);
  const [audios, setAudios] = useState(0);

  // A new model: its defaults, and the other inputs kept within what it accepts.
  useEffect(() => {
    if (!model) return;
    const supported = model.supported_resolutions as string[];
    setResolution(supported.includes(model.default_resolution) ? model.default_resolution : (supported[0] ?? ''));
    const { min, max } = model.capabilities.duration;
    setDuration((current) => Math.min(Math.max(current, min), max));
    setAudio(model.supports_audio);
    setVideos((current) => Math.min(current, model.capabilities.max_videos));
    setAudios((current) => Math.min(current, model.capabilities.max_audios));
  }, [model?.name]);

  if (!model) return null;
  const { min, max, fixed } = model.capabilities.duration;
  const cost = estimateYuan(model, {
    resolution,
    durationSeconds: duration,
    generateAudio: audio,
    videoReferenceCount: videos,
    audioReferenceCount: audios,
  });

  return (
    <Card title="Cost calculator">
      <form class="form grid" data-testid="calc-form" onSubmit={(event) => event.preventDefault()}>
        <label>
          Model
          <select value={model.name} onChange={(e) => setName(e.currentTarget.value)} data-testid="calc-model">
            {choices.map((m) => (
              <option key={m.name} value={m.name}>
                {m.display_name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Resolution
          <select
            value={resolution}
            onChange={(e) => setResolution(e.currentTarget.value)}
            data-testid="calc-resolution"
          >
            {model.supported_resolutions.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <NumberField
          label="Duration (s)"
          hint={fixed ? `Always ${min} s for this model.` : `${min} to ${max} s.`}
          min={min}
          max={max}
          disabled={fixed}
          value={fixed ? min : duration}
          onValue={setDuration}
          testId="calc-duration"
        />
        {model.supports_audio && (
          <label class="check">
            <input
              type="checkbox"
              checked={audio}
              onChange={(e) => setAudio(e.currentTarget.checked)}
              data-testid="calc-audio"
            />
            Generate sound
          </label>
        )}
        <ReferenceCount
          label="Reference videos"
          max={model.capabilities.max_videos}
          value={videos}
          onValue={setVideos}
          testId="calc-videos"
        />
        <ReferenceCount
          label="Reference audios"
          max={model.capabilities.max_audios}
          value={audios}
          onValue={setAudios}
          testId="calc-audios"
        />
      </form>
      <p class="calc-result" aria-live="polite">
        {cost === null ? (
          <span class="muted" data-testid="calc-cost" data-cost="">
            {fixed ? 'Pick a resolution.' : `Pick a whole number of seconds from ${min} to ${max}.`}
          </span>
        ) : (
          <>
            This task would cost{' '}
            <strong data-testid="calc-cost" data-cost={String(cost)}>
              {yuan(cost)}
            </strong>
          </>
        )}
      </p>
      <p class="muted small">Computed with the same pricing code that charges your tasks.</p>
    </Card>
  );
}

/** How many reference files of one kind the task sends: asked only of a model that takes them. */
function ReferenceCount(props: {
  label: string;
  max: number;
  value: number;
  onValue: (value: number) => void;
  testId: string;
}) {
  return props.max > 0 ? <NumberField min={0} {...props} /> : null;
}
