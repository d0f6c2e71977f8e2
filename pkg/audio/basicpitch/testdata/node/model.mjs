// What embed.mjs and reference.mjs share: Basic Pitch's model (npm
// @spotify/basic-pitch, Apache-2.0) loaded from its package, its framing of
// audio into windows, and the pooling of its activations into one vector
// per track. pkg/audio/basicpitch does the same in Go; reference.mjs
// writes what its parity test compares.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';

export { tf };

const require = createRequire(import.meta.url);
export const modelDir = join(require.resolve('@spotify/basic-pitch/package.json'), '..', 'model');

// Basic Pitch's framing (its cjs/inference.js): 2-s windows less one hop,
// 30 frames of overlap, of which each side's 15 are dropped.
export const RATE = 22050, HOP = 256;
export const WIN = RATE * 2 - HOP;
export const OVERLAP = 30 * HOP;
export const STEP = WIN - OVERLAP;
export const TRIM = 15;
export const BATCH = 8;

// Tensors pooled per track: the three outputs (pitch contour 264 bins at a
// third of a semitone, note and onset activations on the 88 piano keys)
// and the model's three hidden ReLU layers.
export const OUTPUTS = {
  contour: 'Identity', note: 'Identity_1', onset: 'Identity_2',
  relu1: 'StatefulPartitionedCall/model_1/re_lu_1/Relu',
  relu2: 'StatefulPartitionedCall/model_1/re_lu_2/Relu',
  relu3: 'StatefulPartitionedCall/model_1/re_lu_3/Relu',
};

// readWAV reads a 22,050 Hz mono 16-bit WAV: its samples and the SHA-256
// of the file (catalog.AudioRef.SHA256) and of its samples' bytes.
export function readWAV(path) {
  const b = readFileSync(path);
  if (b.toString('ascii', 0, 4) !== 'RIFF' || b.readUInt16LE(22) !== 1 || b.readUInt32LE(24) !== RATE || b.readUInt16LE(34) !== 16) {
    throw new Error(`${path}: not 22,050 Hz mono 16-bit PCM`);
  }
  let off = 12;
  while (b.toString('ascii', off, off + 4) !== 'data') off += 8 + b.readUInt32LE(off + 4);
  const n = b.readUInt32LE(off + 4) / 2;
  const pcm = new Float32Array(n);
  for (let i = 0; i < n; i++) pcm[i] = b.readInt16LE(off + 8 + 2 * i) / 32768;
  const samplesSHA = createHash('sha256').update(b.subarray(off + 8, off + 8 + 2 * n)).digest('hex');
  return { pcm, sha: createHash('sha256').update(b).digest('hex'), samplesSHA };
}

// windows frames pcm as Basic Pitch does (half an overlap of zeros first),
// keeping excerpts of them, evenly spread (at (2k+1)/2n of its length): a
// few seconds stand for the track at a fraction of the cost; 0 keeps
// every window, as transcription does.
export function windows(pcm, excerpts) {
  const all = allWindows(pcm);
  if (excerpts <= 0 || all.length <= excerpts) return all;
  return Array.from({ length: excerpts }, (_, k) => all[Math.floor(((2 * k + 1) * all.length) / (2 * excerpts))]);
}

function allWindows(pcm) {
  const padded = new Float32Array(OVERLAP / 2 + pcm.length);
  padded.set(pcm, OVERLAP / 2);
  const out = [];
  for (let s = 0; s < padded.length; s += STEP) {
    const w = new Float32Array(WIN);
    w.set(padded.subarray(s, Math.min(s + WIN, padded.length)));
    out.push(w);
    if (s + WIN >= padded.length) break;
  }
  return out;
}

// Accumulates, per named tensor, the mean over kept frames of each channel
// or bin (and, for outputs, the second moment for a standard deviation).
class Pool {
  constructor() { this.sum = {}; this.sq = {}; this.n = {}; }
  add(name, t) { // t: [batch, frames, ...rest] -> sum over batch and frames
    const shape = t.shape;
    const inner = shape.slice(2).reduce((a, b) => a * b, 1);
    const [s, q] = tf.tidy(() => {
      const kept = t.slice([0, TRIM], [-1, shape[1] - 2 * TRIM]).reshape([-1, inner]);
      return [kept.sum(0).dataSync(), kept.square().sum(0).dataSync()];
    });
    const frames = (shape[1] - 2 * TRIM) * shape[0];
    if (!this.sum[name]) { this.sum[name] = new Float64Array(inner); this.sq[name] = new Float64Array(inner); this.n[name] = 0; }
    for (let i = 0; i < inner; i++) { this.sum[name][i] += s[i]; this.sq[name][i] += q[i]; }
    this.n[name] += frames;
  }
  mean(name) { return Array.from(this.sum[name], (v) => v / this.n[name]); }
  std(name) { return Array.from(this.sq[name], (v, i) => Math.sqrt(Math.max(0, v / this.n[name] - (this.sum[name][i] / this.n[name]) ** 2))); }
}

// channels pools a hidden layer's [frames, freq, channels] mean to one
// value per channel (timbre-like, pitch-independent) and per channel and
// octave band (register), since per-bin means of 264 × 32 would swamp the
// rest.
function channels(pool, name, shape) {
  const m = pool.mean(name);
  const [, , freq, ch] = shape;
  const perCh = new Array(ch).fill(0);
  const bands = 6;
  const perBand = new Array(ch * bands).fill(0);
  for (let f = 0; f < freq; f++) {
    const band = Math.min(bands - 1, Math.floor((f * bands) / freq));
    for (let c = 0; c < ch; c++) {
      perCh[c] += m[f * ch + c] / freq;
      perBand[c * bands + band] += m[f * ch + c] / (freq / bands);
    }
  }
  return { perCh, perBand };
}

// pooled runs the model over ws (windows of one track) in batches and
// pools its activations into the track's vector, by key; each(k, y) sees
// every batch's tensors before they are freed.
export function pooled(model, ws, each = () => {}) {
  const pool = new Pool();
  const shapes = {};
  const names = Object.keys(OUTPUTS);
  for (let i = 0; i < ws.length; i += BATCH) {
    const part = ws.slice(i, i + BATCH);
    const x = tf.tensor3d(Float32Array.from(part.flatMap((w) => Array.from(w))), [part.length, WIN, 1]);
    const ys = model.execute(x, names.map((k) => OUTPUTS[k]));
    names.forEach((k, j) => { shapes[k] = ys[j].shape; pool.add(k, ys[j]); each(k, ys[j], i); });
    tf.dispose([x, ...ys]);
  }
  const h = {};
  for (const k of ['relu1', 'relu2', 'relu3']) h[k] = channels(pool, k, shapes[k]);
  return {
    shapes,
    vector: {
      note_mean: pool.mean('note'), note_std: pool.std('note'), onset_mean: pool.mean('onset'),
      contour_mean: pool.mean('contour'),
      relu1_ch: h.relu1.perCh, relu2_ch: h.relu2.perCh, relu3_ch: h.relu3.perCh,
      relu1_band: h.relu1.perBand, relu2_band: h.relu2.perBand, relu3_band: h.relu3.perBand,
    },
  };
}

// loadModel reads the packaged model.json and its weight shard from disk
// (tfjs's own loader fetches over HTTP) on the backend TFJS_BACKEND
// (default wasm).
export async function loadModel() {
  await tf.setBackend(process.env.TFJS_BACKEND || 'wasm');
  const json = JSON.parse(readFileSync(join(modelDir, 'model.json'), 'utf8'));
  const specs = json.weightsManifest.flatMap((g) => g.weights);
  const data = Buffer.concat(json.weightsManifest.flatMap((g) => g.paths.map((p) => readFileSync(join(modelDir, p)))));
  return tf.loadGraphModel(tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs: specs, weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength), format: json.format, generatedBy: json.generatedBy, convertedBy: json.convertedBy, signature: json.signature }));
}
