// Writes the reference that pkg/audio/basicpitch's parity test compares its
// Go forward pass and pooling with: Basic Pitch on TensorFlow.js over a
// short excerpt of real music.
//
//	ffmpeg -ss 40 -i /usr/share/games/wesnoth/1.16/data/core/music/elvish-theme.ogg -t 3 -map 0:a:0 -ac 1 -ar 22050 -c:a pcm_s16le -bitexact /tmp/excerpt.wav
//	node reference.mjs /tmp/excerpt.wav ../reference.json
//
// It keeps, of the excerpt's first window, the three outputs at every 8th
// frame and the three hidden layers at the middle frame, as little-endian
// float32 in base64, and the pooled vector of every window (embed.mjs with
// EXCERPTS=0). BENCH=n instead times n forward passes of one window and
// prints the CPU each took.
import { writeFileSync } from 'node:fs';
import { tf, WIN, readWAV, windows, pooled, loadModel, OUTPUTS } from './model.mjs';

const EVERY = 8;

async function main() {
  const [wav, out] = process.argv.slice(2);
  if (!wav) throw new Error('usage: node reference.mjs EXCERPT.wav OUT.json');
  const model = await loadModel();
  const { pcm, samplesSHA } = readWAV(wav);
  const ws = windows(pcm, 0);
  if (process.env.BENCH) {
    const n = Number(process.env.BENCH);
    const x = tf.tensor3d(ws[0], [1, WIN, 1]);
    tf.dispose(model.execute(x, Object.values(OUTPUTS))); // warm up
    const cpu0 = process.cpuUsage(), t0 = Date.now();
    for (let i = 0; i < n; i++) tf.dispose(model.execute(x, Object.values(OUTPUTS)));
    const cpu = process.cpuUsage(cpu0);
    console.log(`${tf.getBackend()}: ${((cpu.user + cpu.system) / 1e3 / n).toFixed(1)} ms CPU, ${((Date.now() - t0) / n).toFixed(1)} ms wall per 2-s window`);
    return;
  }
  const tensors = {};
  const { vector, shapes } = pooled(model, ws, (k, y, first) => {
    if (first !== 0) return;
    const [, frames, ...rest] = y.shape;
    const inner = rest.reduce((a, b) => a * b, 1);
    const all = y.slice([0], [1]).dataSync();
    const kept = k.startsWith('relu') ? [frames >> 1] : Array.from({ length: Math.ceil(frames / EVERY) }, (_, i) => i * EVERY);
    const data = new Float32Array(kept.length * inner);
    kept.forEach((f, i) => data.set(all.subarray(f * inner, (f + 1) * inner), i * inner));
    tensors[k] = { shape: y.shape.slice(1), frames: kept, data: Buffer.from(data.buffer).toString('base64') };
  });
  writeFileSync(out, JSON.stringify({
    model: '@spotify/basic-pitch@1.0.1', backend: tf.getBackend(),
    samples: pcm.length, samples_sha256: samplesSHA, windows: ws.length, shapes, tensors, pooled: vector,
  }, null, 1));
}

main().catch((e) => { console.error(e); process.exit(1); });
