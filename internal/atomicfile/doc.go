// Package atomicfile writes files so that readers see either the old
// content or the new, never a torn write: the data goes to a temporary
// file in the same directory, is synced, and is renamed into place.
package atomicfile
