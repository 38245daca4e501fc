// Package ids makes the identifiers new native sessions need: random
// UUIDs (version 4) and time-ordered ones (version 7).
package ids
