// Package live holds the contracts for driving an AI coding CLI live: how
// to launch it (Launch, Setup), how to drive its terminal UI under a
// supervisor (TUI, its Dialogs and Keys), and what a live run is and says
// (Run, the record kept for each run; RunState and Status, the states it
// goes through and each change of them, as published on the bus).
//
// Each CLI's adapter fills these in; inject, supervisor, capture and runs
// read them. Like session, the package holds data types only, imports
// nothing of stead's but session, and performs no I/O.
package live
