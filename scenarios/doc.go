// Package scenarios reads declarative scenario files and plays them: a
// starting session, steps that resume it, fork it, run it through several
// CLIs side by side (A/B) or chain CLIs, the model's answers for each step,
// and what each step must have done. `stead scenario run FILE` runs one
// offline against the real CLIs and stead's model stub, and reports pass
// or fail per expectation.
//
// # Format
//
// A scenario is YAML. Unknown fields are errors, reported with file and
// line.
//
//	name: Resume a Claude session in Codex
//	about: What the scenario shows.
//	start:                      # exactly one of file, ref or prompt
//	  file: sessions/x.jsonl    # a session file, relative to the scenario
//	  ref: claude:<id>          # or a session in your stores (read only)
//	  cli: claude               # the CLI that wrote it (or that runs prompt)
//	  prompt: ...               # or a new session the CLI makes headless,
//	  model: [turns]            #   the model answering as scripted
//	project:
//	  git: true                 # a git repository with one commit (default)
//	  files: {notes.txt: "..."} # the project's files
//	steps:
//	  - resume: codex           # or fork: <cli>, ab: [<cli>...], chain: [...]
//	    prompt: What did the command print?
//	    from: previous          # or start (the first step starts from start)
//	    at: {type: tool_result} # fork: the entry the fork ends at (or an id)
//	    model:                  # what each target's model answers
//	      - text: It printed hello. {cli}
//	    model_for: {claude: [turns]}  # instead of model, for one target
//	    expect: {...}
//	  - chain:
//	      - {cli: claude, prompt: plan it, model: [turns]}
//
// Model turns are the stub's script turns (see modelstub.Turn): text,
// thinking, tools ([{tool: bash, args: {command: ...}}]), usage, and
// faults. Every CLI a scenario runs has a model stub of its own, which
// plays, for each step, the turns the step gives that CLI; {cli} in them
// is replaced with the CLI's name.
//
// Expectations (see Expect): answer, model_saw, model_did_not_see,
// entries, history, history_ends, files, tools, tokens (native, or
// figures), failed. Every step is also expected to finish, and every
// variant of an A/B step not named in failed.
//
// # Sandbox
//
// A scenario runs in a sandbox folder (Prepare): one home in which every
// CLI is set up against its stub on 127.0.0.1, the project, and stead's
// own state (its bus store, A/B worktrees). Of the user's environment
// only PATH, the locale and STEAD_<CLI>_BIN pass in.
// The CLIs are the pinned versions of clis.txt when
// scripts/install-clis.sh installed them, else those on PATH.
//
// Non-goals: scenarios do not drive a CLI's TUI beyond what stead's own
// commands do (a prompt, then the end of the turn), and they do not run
// against real model providers.
package scenarios
