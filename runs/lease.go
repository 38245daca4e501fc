package runs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/stead-dev/stead/bus"
)

// LeaseBus is what holding a run's lease needs of the bus.
type LeaseBus interface {
	AcquireLease(ctx context.Context, run, owner string, ttl time.Duration) (bus.Lease, error)
	RenewLease(ctx context.Context, l bus.Lease) (bus.Lease, error)
	ReleaseLease(ctx context.Context, l bus.Lease) error
}

// ErrLeaseGone is the cause of a held context's end when the holder lost
// its lease: another worker took it, or the holder could not renew it
// within its TTL (it was paused, or cut off from the bus) and gave it up
// rather than fight for it.
var ErrLeaseGone = errors.New("this worker no longer holds the run's lease")

// Held is a run's lease while a worker holds it.
type Held struct {
	// Context ends, with the cause ErrLeaseGone, the moment the lease is
	// lost: the run's CLI must stop then.
	Context context.Context
	gen     atomic.Uint64 // the lease's generation as last renewed
	base    time.Time     // when the lease was taken (a monotonic clock)
	renewed atomic.Int64  // when it was last renewed, since base
	ttl     time.Duration
	final   bus.Lease // the lease as last renewed, once done is closed
	stop    context.CancelFunc
	done    chan struct{}
	b       LeaseBus
}

// Hold takes the lease of run for owner and keeps it, renewing it three
// times a TTL, until Release or until it is lost. A renewal that fails
// for want of the bus is tried again; once the TTL has passed since the
// last renewal that took (the process was stopped, or cut off), the
// holder gives the lease up at once, before anything else: another
// worker may hold it by then.
func Hold(ctx context.Context, b LeaseBus, run, owner string, ttl time.Duration, log *slog.Logger) (*Held, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	l, err := b.AcquireLease(ctx, run, owner, ttl)
	if err != nil {
		return nil, err
	}
	hctx, cancel := context.WithCancelCause(ctx)
	h := &Held{Context: hctx, done: make(chan struct{}), b: b, base: time.Now(), ttl: ttl}
	h.gen.Store(l.Gen)
	h.stop = func() { cancel(context.Canceled) }
	go func() { // The renewer: the one actor that writes the lease.
		defer close(h.done)
		defer func() { h.final = l }()
		tick := time.NewTicker(ttl / 3)
		defer tick.Stop()
		renewed := time.Now()
		for {
			select {
			case <-hctx.Done():
				return
			case <-tick.C:
			}
			if since := time.Since(renewed); since >= ttl {
				log.Warn("runs: the run's lease was not renewed within its TTL; giving the run up", "run", run, "since", since.Round(time.Millisecond))
				cancel(fmt.Errorf("%w: not renewed for %s (TTL %s)", ErrLeaseGone, since.Round(time.Millisecond), ttl))
				return
			}
			rctx, rcancel := context.WithTimeout(hctx, ttl-time.Since(renewed))
			nl, err := b.RenewLease(rctx, l)
			rcancel()
			switch {
			case err == nil:
				l, renewed = nl, time.Now()
				h.gen.Store(l.Gen)
				h.renewed.Store(int64(renewed.Sub(h.base)))
			case errors.Is(err, bus.ErrLeaseLost):
				log.Warn("runs: the run's lease was taken over; giving the run up", "run", run)
				cancel(fmt.Errorf("%w: %w", ErrLeaseGone, err))
				return
			default:
				log.Warn("runs: renewing the run's lease failed; trying again", "run", run, "err", err)
			}
		}
	}()
	return h, nil
}

// Fresh reports whether the lease is held and was renewed within its
// TTL. A holder checks it before each write of the run: after a pause
// (SIGSTOP, a machine that slept) it is false at once, before the
// renewer has woken to give the lease up.
func (h *Held) Fresh() bool {
	return h.Context.Err() == nil && time.Since(h.base)-time.Duration(h.renewed.Load()) < h.ttl
}

// end ends the holder's context (context.Canceled): the run is to end
// here, its worker stopping. Release gives the lease up after.
func (h *Held) end() { h.stop() }

// Gen is the lease's fencing generation as the holder last renewed it.
func (h *Held) Gen() uint64 { return h.gen.Load() }

// Release stops renewing the lease and gives it up, if it is still held:
// the run ended (its end stored first).
func (h *Held) Release(ctx context.Context) error {
	lost := context.Cause(h.Context)
	h.stop()
	<-h.done
	if errors.Is(lost, ErrLeaseGone) {
		return lost
	}
	return h.b.ReleaseLease(ctx, h.final)
}
