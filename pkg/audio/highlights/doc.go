// Package highlights finds the parts of a track a listener would call the
// hook or chorus: passages whose harmony recurs elsewhere in the track
// (stripes in the chroma self-similarity) and that are loud relative to
// the rest, strongest first, optionally inside a time window.
package highlights
