// Package pricing estimates what model usage cost, from a table of list
// prices per million tokens that a user can extend or override.
//
// The built-in table holds public list prices (USD per million tokens) for
// the model families the supported CLIs use; entries ending in '*' match
// any model name with that prefix, the longest prefix winning over shorter
// ones and exact names winning over prefixes. Prices change and new models
// appear: estimates are estimates, and a model with no match is reported as
// unpriced rather than guessed.
package pricing
