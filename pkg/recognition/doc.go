// Package recognition finds the music in a video (interface.md §1.3, §2.4,
// §2.5, §3.1, §4.5): a submitted job runs the pipeline of DESIGN.md §5 and
// ends with the video's segments – catalog matches, outside matches and
// unidentified music – each cleared or not for the account's plan.
//
// # Submit and quota
//
// Submit takes the client's daily quota unit (pkg/quota, scope
// compliance_check) in the same store transaction that creates the queued
// job, then starts the workflow named Machine with the job id as the
// execution name (id-gN for a job written anew the N-th time: execName).
// Concurrent submits at the cap never exceed it; a job
// that cannot be created takes nothing; a job that ends failed through the
// service's fault (timeout, internal_error, a pipeline that cannot be
// started, …) gives its unit back to its submit day's count, while one
// failed by its input (InputError: corrupt_media, no_audio_stream,
// too_short, too_long, too_large) keeps it.
//
// # Pipeline
//
// The state machine infra/statemachines/recognition.asl.json runs four
// tasks, the same code on Lambda and in process (HandleTask):
//
//   - Extract (progress extracting): decode the video's audio (ffmpeg),
//     detect music (musicdetect) and silences (audio.Silences, which no
//     catalog stretch's edge crosses), fingerprint it; the audio and analysis
//     are stored under recognition-work/ keyed by the upload's key and
//     ETag, where Prepare (the S3 upload trigger) may already have put them.
//   - Match (progress matching): the catalog timeline over the catalog's
//     fingerprint segments, each catalog stretch's edges then guided by
//     the track's own audio (guide.go: windows of the prepared audio and
//     of the track's WAV rendition, read by range); music the catalog does
//     not explain stays as unexplained stretches.
//   - External: unexplained stretches are sampled for the outside
//     recognizer (off when none is configured): about one sample of at
//     most 12 s per 30 s of each stretch, at most Config.OutsideSamples
//     per job (default DefaultOutsideSamples), every stretch at least once
//     while the budget lasts. Samples naming the same song make one part
//     reaching the stretch's edges; a failed sample or a lone miss does not
//     split or unname it; two songs meet where the later one starts by its
//     play offset; no part is shorter than 3 s.
//   - Finish (progress finishing): segments, cleared per the plan recorded
//     at submit, suggestions, track; status completed in one write.
//
// Every task is idempotent: its writes are conditional on the job being
// active, and it keeps its result on the job (timeline, outside results),
// so a retried or repeated task redoes or skips its work and never
// changes a job that ended. Results expire about a day after completion.
//
// # Segments
//
// Catalog matches (a track's stems are indexed under it, so a video
// using one stem names the track): internal true, id, title, artist, isrc, cover, and
// score, the fingerprint match strength in [0, 1]; cleared when the plan
// covers the track (catalog.Covers); speed and pitch_semitones when the
// video plays it faster, slower or shifted (fingerprint.Warp). Outside matches: internal false,
// cleared false, id and cover null, external_label, isrc, and the
// service's score scaled to [0, 1] or null. Music no tier named:
// identified false, every track field null. Not-cleared segments carry up
// to 3 suggestions: covered catalog tracks closest by feature vector to
// the matched track, or to the stretch's audio for outside matches (with
// a Vectorizer). Neighbouring segments of the same music are merged. The
// job's track repeats the longest identified segment without timing.
//
// # Failed jobs
//
// Status failed is this service's documented end state for a job that
// cannot finish; the poll then carries error_code and detail:
//
//	corrupt_media    the file is not a readable video
//	no_audio_stream  the video has no audio
//	too_short        the audio is too short to analyze
//	too_long         the audio is longer than the configured maximum (60 min)
//	too_large        the file is larger than 100 MB
//	source_missing   the uploaded file is gone
//	source_changed   the file at the storage key was replaced after submit
//	timeout          a step, or the whole job, took too long
//	interrupted      the service restarted under the job too often
//	start_failed     the pipeline could not be started (the quota unit is returned)
//	internal_error   anything else, after the retries
//
// A task failing with a *JobError (the input's fault) is not retried; any
// other failure is retried by the workflow (workflow.TransientError) and,
// when the retries are spent, caught: MarkFailed invokes
// recognition-finish with the caught error in its input (TaskInput.Error),
// which records the job as failed.
// A job whose pipeline has written nothing for StaleAfter is failed with
// timeout when read, whatever happened to its workflow, and Recover
// resumes or fails the jobs a crash of the devserver left behind: no job
// stays in progress forever.
package recognition
