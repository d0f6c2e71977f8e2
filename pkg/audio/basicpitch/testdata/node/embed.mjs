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
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tf, RATE, STEP, readWAV, windows, pooled, loadModel } from './model.mjs';

// EXCERPTS is how many of a track's windows are analyzed (model.mjs's
// windows); 0 analyzes every window, as transcription does.
const EXCERPTS = Number(process.env.EXCERPTS ?? 4);

async function main() {
  const [dir, out] = process.argv.slice(2);
  if (!dir || !out) throw new Error('usage: node embed.mjs CATALOG_DIR OUT.json');
  const model = await loadModel();
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
    const ws = windows(pcm, EXCERPTS);
    analyzedSeconds += (ws.length * STEP) / RATE;
    const p = pooled(model, ws);
    shapes = p.shapes;
    result.tracks[sha] = { audio: rec.audio, ...p.vector };
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

main().catch((e) => { console.error(e); process.exit(1); });
