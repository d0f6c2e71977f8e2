// Package decode turns media files (mp4, mov, avi, mpeg, mp3, wav, flac, ogg,
// ...) into mono PCM at the analysis rate by streaming raw samples out of
// ffmpeg, and reads and writes WAV in pure Go for tests and stems.
//
// Failures a user can fix (corrupt file, no audio stream, too short) are
// *Error values with a stable Code so the HTTP layer can answer 422
// {detail, error_code}; anything else (ffmpeg missing, context cancelled) is
// an ordinary error and means the service is at fault.
package decode
