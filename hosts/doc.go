// Package hosts answers, on the bus, for a machine's sessions, and asks
// every machine of a cluster for theirs: each stead daemon serves its own
// stores (Serve), and `stead session list --hosts all` gathers them all
// (List), a machine that does not answer being a warning, not a failure.
//
// The protocol: a request on bus.HostSubject(host, "sessions") carries a
// Query; the answer is a stream of Chunk messages to the request's reply
// inbox, the last marked Last. Every host records itself in the bus's
// bucket of hosts (bus.PutHost) while its daemon runs.
package hosts
