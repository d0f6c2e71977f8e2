// Package manifest reads and writes catalog manifests: JSON Lines, one
// track (with its stems) or sound effect per line, as the README's "Catalog
// manifest" section describes. Parse validates each record on its own, so a
// bad line is reported with its number and skipped while the rest go in;
// what it returns is catalog metadata plus where each asset's audio is,
// ready for ingestion to measure and analyze.
package manifest
