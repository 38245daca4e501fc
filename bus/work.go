package bus

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The durable work queue: a detached run is a job, a message on the
// work-queue stream StreamWork, kept until the worker running it
// acknowledges it once the run's end is stored. Every worker pulls from
// one shared consumer: a job whose worker stops telling the stream it is
// in progress (it died, or was cut off) within JobAckWait is delivered
// again, to another worker, which continues the run.
const (
	// StreamWork holds the jobs not yet done, one per run.
	StreamWork = "stead-work"
	// WorkConsumer is the consumer every worker pulls jobs from.
	WorkConsumer = "stead-workers"
	// JobAckWait is how long a job taken waits for its worker's word
	// (InProgress, or its end) before it goes to another worker. A worker
	// says it every few seconds (runs.LeaseTTL/3).
	JobAckWait = 15 * time.Second
)

// JobSubject is the subject of run's job; JobReply, where the worker that
// starts it first answers the command that asked (core NATS, not kept).
func JobSubject(run string) string { return "stead.jobs." + run }

func JobReply(run string) string { return "stead.work.started." + run }

// ErrNoWorkQueue: the bus has no work-queue stream (its daemon is an
// older stead); work goes by request then.
var ErrNoWorkQueue = errors.New("the bus has no work queue (its daemon is an older stead)")

// workStream is the work queue's stream.
func workStream(replicas int) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        StreamWork,
		Description: "stead: detached runs not yet done, one job each",
		Subjects:    []string{JobSubject("*")},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
		// A job asked twice (a command that tried again) is one job.
		Duplicates: 10 * time.Minute,
	}
}

// PublishJob queues run's job. The same run queued again within ten
// minutes is the same job.
func (b *Bus) PublishJob(ctx context.Context, run string, data []byte) error {
	if !ValidRun(run) {
		return fmt.Errorf("bus: run %q: %w", run, ErrNoRun)
	}
	err := b.settle(ctx, func(ctx context.Context) error {
		_, err := b.js.Publish(ctx, JobSubject(run), data, jetstream.WithMsgID("job:"+run))
		return err
	})
	if errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) {
		return fmt.Errorf("bus: run %s: %w", run, ErrNoWorkQueue)
	}
	if err != nil {
		return fmt.Errorf("bus: queueing run %s: %w", run, err)
	}
	return nil
}

// DropJob removes run's job if no worker took it: a command that gave up
// waiting does not leave a run to start later, unasked.
func (b *Bus) DropJob(ctx context.Context, run string) error {
	s, err := b.js.Stream(ctx, StreamWork)
	if err != nil {
		return err
	}
	m, err := s.GetLastMsgForSubject(ctx, JobSubject(run))
	if err != nil {
		return err
	}
	return s.DeleteMsg(ctx, m.Sequence)
}

// Job is a detached run's job, taken by this worker until it is
// acknowledged, or given back.
type Job struct {
	Run  string
	Data []byte
	// Delivered counts the times the job was taken, this one included:
	// above 1, a worker took it before.
	Delivered uint64
	msg       jetstream.Msg
}

// InProgress tells the stream the job's worker is alive: it is not given
// to another for JobAckWait.
func (j *Job) InProgress() error { return j.msg.InProgress() }

// Done acknowledges the job once the run's end is stored: it leaves the
// queue.
func (j *Job) Done(ctx context.Context) error { return j.msg.DoubleAck(ctx) }

// Later gives the job back, to be taken again after delay (its run is
// held by a live worker, or is another host's to start).
func (j *Job) Later(delay time.Duration) error { return j.msg.NakWithDelay(delay) }

// Drop removes a job no worker can ever run (it is not a job stead
// understands).
func (j *Job) Drop() error { return j.msg.Term() }

// Jobs is a worker's pull of jobs.
type Jobs struct {
	b    *Bus
	cons jetstream.Consumer
}

// Jobs binds this worker to the work queue's shared consumer, making it
// on first use.
func (b *Bus) Jobs(ctx context.Context) (*Jobs, error) {
	var cons jetstream.Consumer
	err := b.settle(ctx, func(ctx context.Context) (err error) {
		cons, err = b.js.CreateOrUpdateConsumer(ctx, StreamWork, jetstream.ConsumerConfig{
			Durable:     WorkConsumer,
			Description: "stead workers",
			AckPolicy:   jetstream.AckExplicitPolicy,
			AckWait:     JobAckWait,
			MaxDeliver:  -1,
			// A job a worker holds does not stop the others taking
			// the next; one worker takes one job a pull.
			MaxAckPending: 10000,
			Replicas:      b.opts.Cluster.replicas(),
		})
		return err
	})
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, ErrNoWorkQueue
	}
	if err != nil {
		return nil, fmt.Errorf("bus: the work queue: %w", err)
	}
	return &Jobs{b: b, cons: cons}, nil
}

// Next waits for a job until ctx ends.
func (js *Jobs) Next(ctx context.Context) (*Job, error) {
	// One pull request lives as long as a watch's in process; in a
	// cluster a few seconds, for the consumer's leader may be a member
	// that died or stopped, and a job given again must reach the new one.
	// Its leader's heartbeats, a second apart, tell a pull lost as the
	// leader moved (stepped down, or its member stopped) within two.
	wait := 5 * time.Second
	opts := []jetstream.FetchOpt{jetstream.FetchHeartbeat(jobHeartbeat)}
	if !js.b.clustered() {
		wait, opts = inProcessExpiry, nil
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, wait)
		m, err := js.cons.Next(append(opts, jetstream.FetchContext(wctx))...)
		cancel()
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err == nil:
			md, err := m.Metadata()
			if err != nil {
				m.Term()
				continue
			}
			run, ok := runOfJob(m.Subject())
			if !ok {
				m.Term()
				continue
			}
			return &Job{Run: run, Data: m.Data(), Delivered: md.NumDelivered, msg: m}, nil
		case errors.Is(err, nats.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
			continue
		case errors.Is(err, jetstream.ErrNoHeartbeat), errors.Is(err, jetstream.ErrConsumerLeadershipChanged):
			// The pull was lost with the leader: pulled again at
			// once, from the new one (a job given back meanwhile is
			// given again at once).
			js.b.log.Debug("bus: pulling a job again", "err", err)
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		default:
			// The consumer's member died, or the connection is
			// reconnecting: pull again a moment later.
			js.b.log.Debug("bus: pulling a job", "err", err)
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Second):
			}
		}
	}
}

// jobHeartbeat is how often the work queue's leader tells a worker's
// pending pull, in a cluster, that it still holds it.
// (Not shorter: a pull given up while the leader still holds it takes a
// job no one reads, given again only after JobAckWait.)
const jobHeartbeat = time.Second

// runOfJob is the run a job's subject names.
func runOfJob(subject string) (string, bool) {
	run, ok := strings.CutPrefix(subject, JobSubject(""))
	return run, ok && ValidRun(run)
}

// RequestJob queues run's job and waits until a worker answers that it
// started (AnswerJob), or ctx ends: then the job is taken back, if no
// worker took it meanwhile, so that it does not start later unasked. On a
// bus whose daemon keeps no work queue it returns ErrNoWorkQueue.
func (b *Bus) RequestJob(ctx context.Context, run string, data []byte) ([]byte, error) {
	sub, err := b.nc.SubscribeSync(JobReply(run))
	if err != nil {
		return nil, fmt.Errorf("bus: %w", err)
	}
	defer sub.Unsubscribe()
	if err := b.nc.FlushWithContext(ctx); err != nil {
		return nil, fmt.Errorf("bus: %w", err)
	}
	if err := b.PublishJob(ctx, run, data); err != nil {
		return nil, err
	}
	m, err := sub.NextMsgWithContext(ctx)
	if err != nil {
		dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if b.DropJob(dctx, run) == nil {
			return nil, fmt.Errorf("bus: run %s: no worker started it (%w); it is taken off the queue", run, err)
		}
		return nil, fmt.Errorf("bus: run %s: no worker answered that it started (%w); a worker holds it", run, err)
	}
	return m.Data, nil
}

// AnswerJob tells the command waiting in RequestJob how run's start went.
func (b *Bus) AnswerJob(run string, data []byte) error {
	return b.nc.Publish(JobReply(run), data)
}

// WorkersSubject is where every worker says which host it is (core NATS):
// a worker that stops asks whether another is up to hand its runs to.
const WorkersSubject = "stead.work.workers"

// AnswerWorkers answers on WorkersSubject with host until stop is called.
func (b *Bus) AnswerWorkers(host string) (stop func(), err error) {
	answer := []byte(host)
	sub, err := b.nc.Subscribe(WorkersSubject, func(m *nats.Msg) {
		if m.Reply != "" {
			m.Respond(answer)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("bus: answering as a worker: %w", err)
	}
	// Answering from the moment it returns.
	if err := b.nc.Flush(); err != nil {
		sub.Unsubscribe()
		return nil, fmt.Errorf("bus: answering as a worker: %w", err)
	}
	return func() { sub.Unsubscribe(); b.nc.Flush() }, nil
}

// OtherWorker returns the host of a worker other than self's that
// answers within wait, or "" when none does.
func (b *Bus) OtherWorker(ctx context.Context, self string, wait time.Duration) (string, error) {
	inbox := b.nc.NewInbox()
	sub, err := b.nc.SubscribeSync(inbox)
	if err != nil {
		return "", fmt.Errorf("bus: asking for workers: %w", err)
	}
	defer sub.Unsubscribe()
	if err := b.nc.PublishRequest(WorkersSubject, inbox, nil); err != nil {
		return "", fmt.Errorf("bus: asking for workers: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		m, err := sub.NextMsgWithContext(ctx)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrNoResponders) {
				return "", nil
			}
			return "", fmt.Errorf("bus: asking for workers: %w", err)
		}
		if host := string(m.Data); host != self && host != "" {
			return host, nil
		}
	}
}

// LeaveLeads hands the lead of every stream and consumer that this bus's
// embedded server leads to another member, and waits until others lead
// them: a member about to stop calls it first. Without it, its streams
// (the runs' records, leases, entries) and the work queue's consumer are
// without a leader for the seconds an election takes once it has gone,
// and a job it gave back is given again only after its AckWait.
func (b *Bus) LeaveLeads(ctx context.Context) error {
	srv := b.server()
	if b.opts.Cluster == nil || srv == nil {
		return nil
	}
	me := srv.Name()
	// What this member leads and others keep a copy of (one kept here
	// alone goes with it).
	var leads []lead
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	streams := b.js.ListStreams(lctx)
	for st := range streams.Info() {
		if st.Cluster != nil && st.Cluster.Leader == me && len(st.Cluster.Replicas) > 0 {
			leads = append(leads, lead{stream: st.Config.Name})
		}
		s, err := b.js.Stream(lctx, st.Config.Name)
		if err != nil {
			continue
		}
		cons := s.ListConsumers(lctx)
		for c := range cons.Info() {
			if c.Cluster != nil && c.Cluster.Leader == me && len(c.Cluster.Replicas) > 0 {
				leads = append(leads, lead{stream: st.Config.Name, consumer: c.Name})
			}
		}
	}
	err := streams.Err()
	cancel()
	if err != nil {
		return fmt.Errorf("bus: what this member leads: %w", err)
	}
	for _, l := range leads {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := b.nc.RequestWithContext(rctx, l.stepdown(), nil)
		cancel()
		if err != nil {
			b.log.Debug("bus: handing a lead over", "api", l.stepdown(), "err", err)
		}
	}
	// Each asked on its own: a list of them all waits seconds for the
	// answer of one that is choosing its leader.
	left := leads
	for len(left) > 0 {
		var still []lead
		for _, l := range left {
			// Asked for a second: none answers while one is chosen.
			actx, cancel := context.WithTimeout(ctx, time.Second)
			leader, err := l.leader(actx, b.js)
			cancel()
			if err != nil || leader == me {
				still = append(still, l)
			}
		}
		if left = still; len(left) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("bus: handing this member's leads over: %d still its own: %w", len(left), ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	if len(leads) > 0 {
		b.log.Info("bus: this member's leads are handed to the others", "leads", len(leads))
	}
	return nil
}

// lead is a stream, or a consumer of a stream, that a member leads.
type lead struct{ stream, consumer string }

// stepdown is the JetStream API subject that hands the lead on.
func (l lead) stepdown() string {
	if l.consumer == "" {
		return "$JS.API.STREAM.LEADER.STEPDOWN." + l.stream
	}
	return "$JS.API.CONSUMER.LEADER.STEPDOWN." + l.stream + "." + l.consumer
}

// leader is the member leading l now ("" while one is chosen).
func (l lead) leader(ctx context.Context, js jetstream.JetStream) (string, error) {
	s, err := js.Stream(ctx, l.stream)
	if err != nil {
		return "", err
	}
	if l.consumer == "" {
		if c := s.CachedInfo().Cluster; c != nil {
			return c.Leader, nil
		}
		return "", nil
	}
	c, err := s.Consumer(ctx, l.consumer)
	if err != nil {
		return "", err
	}
	if cl := c.CachedInfo().Cluster; cl != nil {
		return cl.Leader, nil
	}
	return "", nil
}
