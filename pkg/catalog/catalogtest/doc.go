// Package catalogtest provides what tests of the catalog and of its users
// need: a blob store in a temporary directory, realistic tracks and sound
// effects built in memory, and a way to publish them as the current
// catalog.
package catalogtest
