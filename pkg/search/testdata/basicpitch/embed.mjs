// Measurement tool of issue 15 item 6, not in the service path: runs
// Spotify's Basic Pitch (npm @spotify/basic-pitch, Apache-2.0; its weights
// ship inside the package, model/) over the track audio of a rendered
// catalog and writes one pooled vector per track, keyed by the SHA-256 of
// the source WAV (catalog.AudioRef.SHA256), for
// BenchmarkSimilarPrecisionPretrained to compare by cosine.
//
//	node embed.mjs CATALOG_DIR OUT.json
//	SHARD=0/2 node embed.mjs CATALOG_DIR OUT-0.json & SHARD=1/2 node embed.mjs CATALOG_DIR OUT-1.json
//
// CATALOG_DIR holds catalog.jsonl and the WAVs it names (22,050 Hz mono
// 16-bit, what demo and heldout render: Basic Pitch's own input format).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';

const require = createRequire(import.meta.url);
const modelDir = join(require.resolve('@spotify/basic-pitch/package.json'), '..', 'model');

// Basic Pitch's framing (its cjs/inference.js): 2-s windows less one hop,
// 30 frames of overlap, of which each side's 15 are dropped.
const RATE = 22050, HOP = 256;
const WIN = RATE * 2 - HOP;
const OVERLAP = 30 * HOP;
const STEP = WIN - OVERLAP;
const TRIM = 15;
const BATCH = 8;

// Tensors pooled per track: the three outputs (pitch contour 264 bins at a
// third of a semitone, note and onset activations on the 88 piano keys)
// and the model's three hidden ReLU layers.
const OUTPUTS = {
  contour: 'Identity', note: 'Identity_1', onset: 'Identity_2',
  relu1: 'StatefulPartitionedCall/model_1/re_lu_1/Relu',
  relu2: 'StatefulPartitionedCall/model_1/re_lu_2/Relu',
  relu3: 'StatefulPartitionedCall/model_1/re_lu_3/Relu',
};

function readWAV(path) {
  const b = readFileSync(path);
  if (b.toString('ascii', 0, 4) !== 'RIFF' || b.readUInt16LE(22) !== 1 || b.readUInt32LE(24) !== RATE || b.readUInt16LE(34) !== 16) {
    throw new Error(`${path}: not 22,050 Hz mono 16-bit PCM`);
  }
  let off = 12;
  while (b.toString('ascii', off, off + 4) !== 'data') off += 8 + b.readUInt32LE(off + 4);
  const n = b.readUInt32LE(off + 4) / 2;
  const pcm = new Float32Array(n);
  for (let i = 0; i < n; i++) pcm[i] = b.readInt16LE(off + 8 + 2 * i) / 32768;
  return { pcm, sha: createHash('sha256').update(b).digest('hex') };
}

// EXCERPTS is how many of a track's windows are analyzed, evenly spread
// (at (2k+1)/2n of its length): a few seconds stand for the track at a
// fraction of the cost; 0 analyzes every window, as transcription does.
const EXCERPTS = Number(process.env.EXCERPTS ?? 4);

// windows frames pcm as Basic Pitch does (half an overlap of zeros first),
// keeping EXCERPTS of them.
function windows(pcm) {
  const all = allWindows(pcm);
  if (EXCERPTS <= 0 || all.length <= EXCERPTS) return all;
  return Array.from({ length: EXCERPTS }, (_, k) => all[Math.floor(((2 * k + 1) * all.length) / (2 * EXCERPTS))]);
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

async function main() {
  const [dir, out] = process.argv.slice(2);
  if (!dir || !out) throw new Error('usage: node embed.mjs CATALOG_DIR OUT.json');
  await tf.setBackend(process.env.TFJS_BACKEND || 'wasm');
  const model = await tf.loadGraphModel(tf.io.fromMemory(loadModel()));
  // SHARD=k/n takes every n-th track from the k-th (0-based), so n
  // processes can share a catalog; each writes its own OUT.
  const [k, n] = (process.env.SHARD ?? '0/1').split('/').map(Number);
  const lines = readFileSync(join(dir, 'catalog.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((rec) => rec.audio && rec.kind === 'track').filter((_, i) => i % n === k);
  const result = { model: '@spotify/basic-pitch@1.0.1', backend: tf.getBackend(), tracks: {} };
  let audioSeconds = 0, analyzedSeconds = 0, cpu0 = process.cpuUsage(), t0 = Date.now(), shapes = {};
  for (const rec of lines) {
    const { pcm, sha } = readWAV(join(dir, rec.audio));
    audioSeconds += pcm.length / RATE;
    const ws = windows(pcm);
    analyzedSeconds += (ws.length * STEP) / RATE;
    const pool = new Pool();
    for (let i = 0; i < ws.length; i += BATCH) {
      const part = ws.slice(i, i + BATCH);
      const x = tf.tensor3d(Float32Array.from(part.flatMap((w) => Array.from(w))), [part.length, WIN, 1]);
      const names = Object.keys(OUTPUTS);
      const ys = model.execute(x, names.map((k) => OUTPUTS[k]));
      names.forEach((k, j) => { shapes[k] = ys[j].shape; pool.add(k, ys[j]); });
      tf.dispose([x, ...ys]);
    }
    const h = {};
    for (const k of ['relu1', 'relu2', 'relu3']) h[k] = channels(pool, k, shapes[k]);
    result.tracks[sha] = {
      audio: rec.audio,
      note_mean: pool.mean('note'), note_std: pool.std('note'), onset_mean: pool.mean('onset'),
      contour_mean: pool.mean('contour'),
      relu1_ch: h.relu1.perCh, relu2_ch: h.relu2.perCh, relu3_ch: h.relu3.perCh,
      relu1_band: h.relu1.perBand, relu2_band: h.relu2.perBand, relu3_band: h.relu3.perBand,
    };
    process.stderr.write('.');
  }
  const cpu = process.cpuUsage(cpu0);
  result.shapes = shapes;
  result.excerpts = EXCERPTS;
  result.audio_seconds = audioSeconds;
  result.analyzed_seconds = analyzedSeconds;
  result.cpu_seconds = (cpu.user + cpu.system) / 1e6;
  result.wall_seconds = (Date.now() - t0) / 1000;
  writeFileSync(out, JSON.stringify(result));
  process.stderr.write(`\n${Object.keys(result.tracks).length} tracks, ${audioSeconds.toFixed(0)} s of audio (${analyzedSeconds.toFixed(0)} s analyzed), ${result.cpu_seconds.toFixed(1)} s CPU, ${result.wall_seconds.toFixed(1)} s wall\n`);
}

// loadModel reads the packaged model.json and its weight shard from disk
// (tfjs's own loader fetches over HTTP).
function loadModel() {
  const json = JSON.parse(readFileSync(join(modelDir, 'model.json'), 'utf8'));
  const specs = json.weightsManifest.flatMap((g) => g.weights);
  const data = Buffer.concat(json.weightsManifest.flatMap((g) => g.paths.map((p) => readFileSync(join(modelDir, p)))));
  return { modelTopology: json.modelTopology, weightSpecs: specs, weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength), format: json.format, generatedBy: json.generatedBy, convertedBy: json.convertedBy, signature: json.signature };
}

main().catch((e) => { console.error(e); process.exit(1); });
