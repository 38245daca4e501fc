// Package redact hides secrets of common shapes in text stead writes: API
// keys (Anthropic, OpenAI, Google, AWS, GitHub, GitLab, Slack, Stripe),
// JSON web tokens, bearer tokens, private key blocks, and the values of
// keys named like a secret (password=..., "api_key": "..."). Each is
// replaced by [REDACTED:<kind>].
//
// It works on text as it is written, a line at a time, so it applies the
// same way to a Markdown transcript and to JSON (where a replacement keeps
// a string valid: it holds no quote or backslash, and a match never ends
// inside an escape). A private key block is hidden from its BEGIN line to
// its END line, whether its lines are real newlines or JSON's \n escapes.
//
// Redaction is a help, not a guarantee: a secret of a shape it does not
// know passes. It imports only the standard library.
package redact
