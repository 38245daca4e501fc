package session

// Universal tool arguments: the form in which a conversion carries a tool
// call's input from one CLI's tool to another's. An adapter reads its
// native input into these keys (ToolArgs) and writes them back out in its
// own schema (ToolCall). Keys a tool does not use are absent.
//
//	bash        command, description, timeout (ms)
//	read        path, offset (first line, 1-based), limit (lines)
//	write       path, content
//	edit        path, old, new, replaceAll; or path, edits [{old, new, replaceAll}];
//	            or patch (a Codex apply_patch patch, which may touch several files)
//	search      pattern (a regular expression), path, glob (a file filter)
//	glob        pattern, path
//	list        path
//	web_fetch   url, prompt
//	web_search  query
//	todo        todos [{content, status: pending|in_progress|completed}]
//	task        prompt, description, agent
//	image       path
//
// Paths are as the source recorded them (usually absolute).
const (
	ArgCommand     = "command"
	ArgDescription = "description"
	ArgTimeout     = "timeout"
	ArgPath        = "path"
	ArgOffset      = "offset"
	ArgLimit       = "limit"
	ArgContent     = "content"
	ArgOld         = "old"
	ArgNew         = "new"
	ArgReplaceAll  = "replaceAll"
	ArgEdits       = "edits"
	ArgPatch       = "patch"
	ArgPattern     = "pattern"
	ArgGlob        = "glob"
	ArgURL         = "url"
	ArgPrompt      = "prompt"
	ArgQuery       = "query"
	ArgTodos       = "todos"
	ArgAgent       = "agent"
)

// Todo states in ArgTodos.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)
