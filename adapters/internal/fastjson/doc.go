// Package fastjson reads JSON records held whole in memory, checking them
// as strictly as encoding/json does, in one pass and without reflection.
//
// It exists so that the adapters' full decoders (the ones that keep every
// native record) can read a record once instead of three or four times:
// encoding/json checks the whole input before decoding it, and a field
// kept as json.RawMessage is checked again when it is decoded in turn.
//
// A Parser is exact or it gives up. It accepts precisely the inputs
// encoding/json accepts, and decodes strings as encoding/json does
// (invalid UTF-8 becomes U+FFFD, lone surrogates too). Where encoding/json
// would do something a caller does not mirror (a value of an unexpected
// type, a key that matches a field only when case is ignored), the caller
// calls Decline and decodes the record with encoding/json instead; so
// does it when the input is not valid JSON, to report encoding/json's
// own error. What a caller gets from a Parser is therefore always what
// encoding/json would have given it.
//
// This package is internal to the adapters; it knows nothing of any CLI.
// It is not a general JSON library: no streaming, no floats, no encoding.
package fastjson
