package live

import "time"

// Host is a machine whose stead daemon answers, on the bus, for its CLIs'
// stores (its sessions), recorded in the bus's bucket of hosts while the
// daemon runs.
type Host struct {
	// Name names the machine: its cluster member's name, or its host
	// name.
	Name    string    `json:"name"`
	PID     int       `json:"pid"`
	Version string    `json:"version,omitempty"`
	Started time.Time `json:"started"`
}
