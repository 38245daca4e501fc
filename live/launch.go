package live

// Launch describes one run of a CLI. Adapters turn it into the CLI's
// environment, config files and command line.
type Launch struct {
	// Home is the directory that stands in for the user's home: the
	// CLI's config and session store live under it.
	Home string
	// Dir is the project directory the CLI runs in.
	Dir string
	// BaseURL is the model server the CLI talks to, such as a stead stub:
	// http://127.0.0.1:PORT. Empty means the CLI's own provider.
	BaseURL string
	// Model is the model name to ask for; empty means the adapter's
	// choice.
	Model string
	// Prompt is the user prompt of a headless run.
	Prompt string
	// Resume is the id of a session to continue.
	Resume string
	// Auto lets every tool run without asking (the CLI's bypass or yolo
	// mode), for supervised runs nobody watches.
	Auto bool
}

// Setup is what a CLI needs to run a Launch: environment variables and
// files to write under Launch.Home (paths relative to it, with forward
// slashes), so that no dialog appears and nothing leaves the machine.
type Setup struct {
	Env   []string          `json:"env"`
	Files map[string]string `json:"files,omitempty"`
	// Notes tell a person what else to know (flags to pass, pitfalls).
	Notes string `json:"notes,omitempty"`
}
