// Package catalog finds the sessions of every CLI on this machine and
// summarises them: it asks each adapter to discover its store's files, scans
// them in parallel with the adapters' fast summarizers, and settles usage
// that forks and sessions stead wrote copied from other sessions, dropping
// it where it also saw the source, so totals count each model response
// once.
//
// It reads only; it never writes to a CLI's store.
package catalog
