// Package usftest holds test helpers for universal session documents:
// validation against the shipped JSON Schema, golden files, and figures
// derived from a full session to check fast summaries against. Only tests
// import it.
package usftest
