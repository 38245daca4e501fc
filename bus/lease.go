package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// BucketLeases records which worker holds each run (Lease).
const BucketLeases = "stead-leases"

// Lease is a worker's hold on a run: while it holds it, no other worker
// runs the run. Gen is its fencing generation, the revision of the
// lease's record in the bucket: every renewal writes only over the
// revision it holds, so that a holder that lost the lease (it stopped
// renewing, another took it) finds out at its next renewal, and never
// writes over the new holder's.
type Lease struct {
	Run   string `json:"run"`
	Owner string `json:"owner"`
	// TTL is how long the lease lasts without a renewal.
	TTL time.Duration `json:"ttl"`
	// Gen is the record's revision (not stored in it).
	Gen uint64 `json:"-"`
	// Renewed is when the bus stored the holder's last renewal.
	Renewed time.Time `json:"-"`
}

// Errors of leases.
var (
	// ErrLeaseHeld: another worker holds the run's lease, and it has not
	// expired.
	ErrLeaseHeld = errors.New("another worker holds the run's lease")
	// ErrLeaseLost: the lease was taken over (it expired) or released
	// since this holder last renewed it.
	ErrLeaseLost = errors.New("the run's lease was lost")
	// ErrNoLeases: the bus keeps no leases (an older stead set it up).
	ErrNoLeases = errors.New("the bus keeps no leases (its daemon is an older stead)")
)

// AcquireLease takes the lease of run for owner: a new one, or one whose
// holder has not renewed it within its TTL (judged by this machine's
// clock against the time the bus stored the renewal: the machines'
// clocks must agree within a small part of the TTL). It returns the
// lease held, or ErrLeaseHeld with the holder's lease.
func (b *Bus) AcquireLease(ctx context.Context, run, owner string, ttl time.Duration) (Lease, error) {
	if !ValidRun(run) {
		return Lease{}, fmt.Errorf("bus: run %q: %w", run, ErrNoRun)
	}
	if b.lease == nil {
		return Lease{}, ErrNoLeases
	}
	l := Lease{Run: run, Owner: owner, TTL: ttl}
	data, err := json.Marshal(l)
	if err != nil {
		return Lease{}, err
	}
	var held Lease
	err = b.settle(ctx, func(ctx context.Context) error {
		rev, err := b.lease.Create(ctx, run, data)
		if err == nil {
			l.Gen = rev
			return nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return err
		}
		cur, err := b.lease.Get(ctx, run)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return ErrLeaseLost // deleted meanwhile: tried again below
		}
		if err != nil {
			return err
		}
		held = leaseOf(cur)
		if time.Since(held.Renewed) < held.TTL {
			return ErrLeaseHeld
		}
		rev, err = b.lease.Update(ctx, run, data, cur.Revision())
		if mismatch(err) {
			return ErrLeaseLost // another took it first: looked at again below
		}
		if err != nil {
			return err
		}
		l.Gen = rev
		return nil
	})
	if errors.Is(err, ErrLeaseLost) {
		return b.AcquireLease(ctx, run, owner, ttl)
	}
	if errors.Is(err, ErrLeaseHeld) {
		return held, fmt.Errorf("bus: run %s: %w (%s, renewed %s ago)", run, ErrLeaseHeld, held.Owner, time.Since(held.Renewed).Round(time.Millisecond))
	}
	if err != nil {
		return Lease{}, fmt.Errorf("bus: lease of run %s: %w", run, err)
	}
	l.Renewed = time.Now()
	return l, nil
}

// RenewLease renews a lease held: ErrLeaseLost when another took it or
// it was released. It returns the lease with its new generation.
func (b *Bus) RenewLease(ctx context.Context, l Lease) (Lease, error) {
	if b.lease == nil {
		return l, ErrNoLeases
	}
	data, err := json.Marshal(l)
	if err != nil {
		return l, err
	}
	err = b.settle(ctx, func(ctx context.Context) error {
		rev, err := b.lease.Update(ctx, l.Run, data, l.Gen)
		if err != nil {
			return err
		}
		l.Gen = rev
		return nil
	})
	if mismatch(err) || errors.Is(err, jetstream.ErrKeyNotFound) {
		return l, fmt.Errorf("bus: run %s: %w", l.Run, ErrLeaseLost)
	}
	if err != nil {
		return l, fmt.Errorf("bus: renewing the lease of run %s: %w", l.Run, err)
	}
	l.Renewed = time.Now()
	return l, nil
}

// ReleaseLease gives a lease up, if it is still held: the run ended.
func (b *Bus) ReleaseLease(ctx context.Context, l Lease) error {
	if b.lease == nil {
		return ErrNoLeases
	}
	err := b.settle(ctx, func(ctx context.Context) error {
		return b.lease.Delete(ctx, l.Run, jetstream.LastRevision(l.Gen))
	})
	if mismatch(err) {
		return fmt.Errorf("bus: run %s: %w", l.Run, ErrLeaseLost)
	}
	return err
}

// mismatch reports whether a write failed for the revision it was made
// over: another wrote since.
func mismatch(err error) bool {
	var apiErr *jetstream.APIError
	return errors.Is(err, jetstream.ErrKeyRevisionMismatch) ||
		errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}

func leaseOf(e jetstream.KeyValueEntry) Lease {
	var l Lease
	json.Unmarshal(e.Value(), &l)
	l.Run, l.Gen, l.Renewed = e.Key(), e.Revision(), e.Created()
	return l
}
