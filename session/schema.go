package session

import _ "embed"

// Schema is the JSON Schema (draft 2020-12) of the universal session format
// as stead writes it.
//
//go:embed usf.schema.json
var Schema []byte
