//go:build !linux

package index

import (
	"errors"
	"fmt"
)

func newNotifier() (notifier, error) {
	return nil, fmt.Errorf("index: watching the stores is built for Linux only: %w", errors.ErrUnsupported)
}
