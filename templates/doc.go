// Package templates holds prompt templates: reusable session starters, a
// prompt with {{placeholders}} and an optional starting conversation,
// that stead runs in any CLI (seed 001's "Prompt Templates"). Templates
// are YAML files: stead's built-in ones, and the user's in
// $XDG_CONFIG_HOME/stead/templates, which replace a built-in one of the
// same name.
package templates
