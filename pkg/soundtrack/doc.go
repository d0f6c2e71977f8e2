// Package soundtrack is the "soundtrack a video" domain (interface.md §1.2,
// §2.3, §4.1; gaps.md): a client uploads a video (a file, a presigned
// upload, or a YouTube link) and gets a SoundtrackVideo whose source_value
// feeds the by-video search.
//
// A video is analyzed when it is created, so a video that cannot be
// analyzed is refused at once (422) rather than failing a later search.
// The analysis (the music in its audio, the pace of its picture; see
// package videoanalysis) is cached in the Jobs table per source value:
// files by a 128-bit content hash, which is their source_value, so the
// same file gives the same value and is analyzed once; links by their
// canonical form. The same value therefore always ranks the catalog the
// same way while it lives.
//
// Records and analyses expire after Retention (TTL on the item); uploaded
// media lives under UploadPrefix, which the bucket's lifecycle rule
// empties after a few days more. Public videos are readable by anyone,
// private ones only by their creator.
//
// Links are fetched through the VideoFetcher port (adapters in package
// fetch), only after ParseLink has checked them against the platforms
// gaps.md lists.
package soundtrack
