// Package codex reads OpenAI Codex CLI's native session store.
//
// Codex (measured on 0.169.0) writes one "rollout" per thread at
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl,
// CODEX_HOME defaulting to ~/.codex. Each line is an envelope
// {"timestamp","type","payload"} (paginated rollouts add "ordinal"): a
// session_meta first, then response_item records (the model-visible
// history: messages, reasoning, function calls and outputs), turn_context,
// world_state, token usage records and event_msg UI events. Legacy rollouts
// have no ordinals and use user_message/agent_message events; the oldest
// ones have no envelope at all. A fork of a paginated thread refers to its
// parent's file by thread id and byte offset (history_base); a fork of a
// legacy thread copies the parent's lines after a second session_meta.
//
// A tool call is known from a response item (function_call, custom,
// local shell, web search, tool search and image generation items), from
// an event that ends it (exec_command_end, mcp_tool_call_end,
// patch_apply_end, web_search_end, image_generation_end, collab_*,
// item_completed of a command), or from both: each is paired once (see
// calls), and the event's outcome (exit code, success flag, MCP isError)
// is its result's status. The oldest rollouts' meta has no cwd: the
// project is the directory their <environment_context> states.
//
// Decoder turns records into universal timeline entries (keeping each
// native record), Read builds a whole session, ReadFile also resolves a
// fork's parent history, and Summarize scans a file for listing and
// statistics in memory independent of its size. Token usage follows the
// rules of ccusage: each token_count event whose running total changed adds
// its last_token_usage (or the change in the total when that is missing),
// and input tokens exclude cached ones.
//
// # Driving the TUI
//
// TUI (tui.go) runs `codex --no-daemon` under stead's supervisor. Busy
// and idle come from the rollout's turn records (task_complete, and
// turn_aborted, which a refused approval or Esc writes with no
// task_complete after it); the screen says busy sooner ("esc to
// interrupt") and says waiting for an approval overlay ("Would you like
// to run the following command?" above "Press enter to confirm or esc to
// cancel"), of which the rollout has no record. In its default policy
// (on-request) Codex asks only when the model asks to leave the sandbox
// (sandbox_permissions "require_escalated"); testdata/tui_screens.txt
// holds the measured screens.
//
// All knowledge of Codex's formats lives in this package.
package codex
