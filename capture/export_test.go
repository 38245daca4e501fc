package capture

import "time"

// SetStaleScreenBusy makes a screen's busy stale after d, for a test.
func SetStaleScreenBusy(d time.Duration) (restore func()) {
	old := staleScreenBusy
	staleScreenBusy = d
	return func() { staleScreenBusy = old }
}
