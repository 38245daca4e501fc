package session

import "time"

// Target describes a new native session that a conversion writes: which
// CLI it is for, and the facts its native files need up front.
type Target struct {
	// CLI is the target CLI.
	CLI string `json:"cli"`
	// ID is the new session's native id. Place chooses one when it is
	// empty; a conversion never reuses the source's id.
	ID string `json:"id"`
	// Dir is the absolute project directory the session belongs to (the
	// cwd the target CLI resumes it from).
	Dir string `json:"dir"`
	// Created is when the session started.
	Created time.Time `json:"created"`
	// Model and Provider name the model the target CLI will resume the
	// session with: the one asked for (--model), else the one the target
	// CLI is configured with, else empty for the CLI's own default (Place
	// settles them). Never the source's: a model of another provider fails
	// the target's first turn. Writers put them wherever the CLI reads back
	// the model it will use.
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider,omitempty"`
	// ModelFrom says where Model came from: "--model", the configuration
	// file or environment variable it was read from, or "default".
	ModelFrom string `json:"modelFrom,omitempty"`
	// SourceModel and SourceProvider name the source session's model,
	// for records that are history (the model that wrote a message),
	// where an entry names none.
	SourceModel    string `json:"sourceModel,omitempty"`
	SourceProvider string `json:"sourceProvider,omitempty"`
	// Title is the session's title, if it has one.
	Title string `json:"title,omitempty"`
	// Origin records where the session came from (provenance): the
	// source CLI and session id.
	Origin Origin `json:"origin"`
	// Format names one of the target's storage formats when it has
	// several (Kimi: "legacy" for kimi-cli); empty means its current one.
	Format string `json:"format,omitempty"`
	// Path is the main native file Place chose (Placement.Path), known
	// to the encoder, which may put files beside it.
	Path string `json:"path,omitempty"`
}

// Origin is the source of a converted session.
type Origin struct {
	CLI string `json:"cli"`
	ID  string `json:"id"`
	// Tool is the converter ("stead") and its version.
	Tool string `json:"tool,omitempty"`
	// At is the entry a fork ends at: the source's history up to it and
	// no further.
	At string `json:"at,omitempty"`
	// Written is when stead wrote the session (UTC). Every record it
	// wrote is the source's history, timed as it was there and so at or
	// before Written; what the target CLI adds later is the session's
	// own. A summary tells the two apart by it (see Summary.History).
	Written time.Time `json:"written,omitzero"`
}

// Placement is where a new native session goes in a CLI's store.
type Placement struct {
	// Root is the store's root: every path below lies inside it.
	Root string `json:"root"`
	// Path is the main native file, which the writer's encoder fills.
	Path string `json:"path"`
	// Files are small files the CLI also needs (project markers), created
	// before the main file when they do not exist yet. An existing file
	// is never changed.
	Files []File `json:"files,omitempty"`
	// Resume is the command that continues the session in the target
	// CLI, run from Target.Dir.
	Resume []string `json:"resume"`
}

// File is a file to create.
type File struct {
	Path string `json:"path"`
	Data []byte `json:"-"`
}

// Loss is something a conversion could not carry over as it was.
type Loss struct {
	// Entry is the id of the source entry concerned, if any.
	Entry string `json:"entry,omitempty"`
	// What was lost: one of the Lost constants.
	What string `json:"what"`
	// How it was handled: one of the Handled constants.
	How string `json:"how"`
	// Detail says why, for a person.
	Detail string `json:"detail"`
}

// What a conversion can lose.
const (
	LostReasoning  = "reasoning"  // a signed or encrypted reasoning block
	LostThinking   = "thinking"   // thinking text the target cannot hold
	LostAttachment = "attachment" // an image or file
	LostTool       = "tool"       // a tool call the target cannot express as a call
	LostResult     = "result"     // a tool call without a result
	LostEntry      = "entry"      // a system entry, marker or other entry
	LostBranch     = "branch"     // entries off the main line of the conversation
	LostUsage      = "usage"      // token usage the target cannot record
	LostSize       = "size"       // history the target will not load because of its size
)

// How a loss was handled.
const (
	HandledDropped     = "dropped"     // left out
	HandledText        = "text"        // carried as plain text
	HandledPlaceholder = "placeholder" // a stand-in was made up
	HandledChanged     = "changed"     // carried, but altered
	HandledWarned      = "warned"      // carried, with a caveat
)
