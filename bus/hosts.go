package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stead-dev/stead/live"
)

// BucketHosts records the hosts whose daemons answer for their stores.
const BucketHosts = "stead-hosts"

// HostSubject is where the daemon of host answers requests of one kind
// about its stores ("sessions").
func HostSubject(host, what string) string { return "stead.host." + host + "." + what }

// ValidHost reports whether name can name a host: a subject token of
// letters, digits, '-' and '_' (a host name's dots become '_': see
// HostName).
func ValidHost(name string) bool { return ValidRun(name) }

// HostName is the name a machine answers as on the bus: name with every
// character a subject cannot hold made '_'.
func HostName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "unknown"
	}
	return string(b)
}

// ErrNoHosts is returned when the bus keeps no bucket of hosts (one set
// up by an older stead).
var ErrNoHosts = errors.New("the bus records no hosts (its daemon is an older stead)")

// PutHost records that h's daemon answers for its stores.
func (b *Bus) PutHost(ctx context.Context, h live.Host) error {
	if !ValidHost(h.Name) {
		return fmt.Errorf("bus: host %q is not a host name", h.Name)
	}
	if b.hosts == nil {
		return ErrNoHosts
	}
	data, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return b.settle(ctx, func(ctx context.Context) error {
		_, err := b.hosts.Put(ctx, h.Name, data)
		return err
	})
}

// DeleteHost removes the record of host, whose daemon stops.
func (b *Bus) DeleteHost(ctx context.Context, host string) error {
	if b.hosts == nil || !ValidHost(host) {
		return nil
	}
	return b.settle(ctx, func(ctx context.Context) error { return b.hosts.Delete(ctx, host) })
}

// Hosts lists the hosts recorded, by name.
func (b *Bus) Hosts(ctx context.Context) ([]live.Host, error) {
	if b.hosts == nil {
		return nil, ErrNoHosts
	}
	var out []live.Host
	err := b.settle(ctx, func(ctx context.Context) error {
		out = out[:0]
		lister, err := b.hosts.ListKeys(ctx)
		if errors.Is(err, jetstream.ErrNoKeysFound) {
			return nil
		}
		if err != nil {
			return err
		}
		defer lister.Stop()
		for key := range lister.Keys() {
			e, err := b.hosts.Get(ctx, key)
			if errors.Is(err, jetstream.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			var h live.Host
			if json.Unmarshal(e.Value(), &h) == nil && ValidHost(h.Name) && h.Name == key {
				out = append(out, h)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bus: hosts: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// HandleStream answers requests on subject (every subscriber hears each:
// no queue group) with as many messages as handle sends; each request is
// handled on its own goroutine.
func (b *Bus) HandleStream(subject string, handle func(data []byte, send func([]byte) error)) (stop func(), err error) {
	var h handlers
	sub, err := b.nc.Subscribe(subject, func(m *nats.Msg) {
		if m.Reply == "" {
			return
		}
		h.do(func() { handle(m.Data, func(p []byte) error { return b.nc.Publish(m.Reply, p) }) })
	})
	if err != nil {
		return nil, fmt.Errorf("bus: serve %s: %w", subject, err)
	}
	return func() { sub.Unsubscribe(); h.close() }, nil
}

// RequestStream sends a request to subject and calls fn with each message
// of the answer until fn says it was the last, ctx ends or fn fails.
// ErrNotListening when nobody answers on subject.
func (b *Bus) RequestStream(ctx context.Context, subject string, data []byte, fn func([]byte) (last bool, err error)) error {
	inbox := b.nc.NewInbox()
	ch := make(chan *nats.Msg, 64)
	sub, err := b.nc.ChanSubscribe(inbox, ch)
	if err != nil {
		return fmt.Errorf("bus: %s: %w", subject, err)
	}
	defer sub.Unsubscribe()
	if err := b.nc.PublishRequest(subject, inbox, data); err != nil {
		return fmt.Errorf("bus: %s: %w", subject, err)
	}
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("bus: %s: %w", subject, ctx.Err())
		case m := <-ch:
			if len(m.Data) == 0 && m.Header.Get("Status") == "503" {
				return fmt.Errorf("bus: %s: %w", subject, ErrNotListening)
			}
			last, err := fn(m.Data)
			if err != nil || last {
				return err
			}
		}
	}
}
