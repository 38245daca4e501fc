//go:build !linux

package notify

import (
	"errors"
	"fmt"
)

// Notifier is the system's file change notification, built for Linux
// only: elsewhere New fails with errors.ErrUnsupported.
type Notifier struct{}

// New fails: watching folders is built for Linux only.
func New() (*Notifier, error) {
	return nil, fmt.Errorf("watching folders is built for Linux only: %w", errors.ErrUnsupported)
}

// Add is never called: New fails.
func (n *Notifier) Add(dir string) (int, error) { return 0, errors.ErrUnsupported }

// Remove is never called: New fails.
func (n *Notifier) Remove(wd int) {}

// Run is never called: New fails.
func (n *Notifier) Run(out chan<- []Event) error { return errors.ErrUnsupported }

// Close is never called: New fails.
func (n *Notifier) Close() {}
