package nomination

import (
	"context"
	"slices"
	"strings"
	"time"

	"atcp/internal/clock"
	"atcp/internal/markets/calendar"
	"atcp/internal/worker"
)

// Exchange is the TSO's data exchange: it takes both directions' files of
// a revision and answers whether it accepted them. An error is a failed
// attempt (the revision is sent again later), a rejection an answer.
type Exchange interface {
	Send(ctx context.Context, r Revision, files map[Direction][]byte) (Answer, error)
}

// Answer is the TSO's answer to a sent revision.
type Answer struct {
	Accepted bool
	Detail   string
}

// Simulated is the exchange of the demonstration environment: it
// acknowledges every well-formed revision.
type Simulated struct{}

func (Simulated) Send(_ context.Context, r Revision, files map[Direction][]byte) (Answer, error) {
	for _, d := range Directions {
		if len(files[d]) == 0 {
			return Answer{Detail: "file " + string(d) + " missing"}, nil
		}
	}
	return Answer{Accepted: true, Detail: "acknowledged by the simulated data exchange (" + r.Reference + ")"}, nil
}

// The job's timing.
const (
	// JobName is the job's name in leases, logs and metrics.
	JobName = "nomination.exchange"
	// Every is the job's period on the platform clock.
	Every = 15 * time.Minute
	// Grace is how long after its end a day with bids still waiting for
	// their outcome is held back before its first revision; after it the
	// revision leaves those quarter-hours out and a later outcome makes
	// the next revision.
	Grace = 2 * time.Hour
	// Lookback is how long after its end a day is rebuilt on every run
	// (late outcomes, changed EICs); older days keep their revisions.
	Lookback = 72 * time.Hour
	// ResendAfter is how long a sent revision waits for an answer before
	// it is sent again (an instance died between sending and recording).
	ResendAfter = 15 * time.Minute
)

// Job builds the revisions of completed days and exchanges them.
type Job struct {
	store    Store
	exchange Exchange
	clock    clock.Clock
}

// NewJob returns the job over the store, the exchange and the platform
// clock.
func NewJob(s Store, x Exchange, clk clock.Clock) *Job {
	return &Job{store: s, exchange: x, clock: clk}
}

// Jobs is the job, for a worker.Runner.
func (j *Job) Jobs() []worker.Job {
	return []worker.Job{{Name: JobName, Every: Every, Run: j.Run}}
}

// Run nominates every day completed by due within Lookback, then sends
// what is unsent.
func (j *Job) Run(ctx context.Context, due time.Time) error {
	var r registry // read once per run, when a day needs it
	last := calendar.DayOf(due).AddDays(-1)
	for d := last; due.Sub(d.Span().End) < Lookback; d = d.AddDays(-1) {
		if err := j.nominate(ctx, d, due, &r); err != nil {
			return err
		}
	}
	return j.Send(ctx)
}

// registry is the asset zones and configurations a run builds with.
type registry struct {
	read    bool
	zones   []AssetZone
	configs []Config
}

func (j *Job) load(ctx context.Context, r *registry) (err error) {
	if r.read {
		return nil
	}
	if r.zones, err = j.store.AssetZones(ctx); err != nil {
		return err
	}
	if r.configs, err = j.store.Configs(ctx); err != nil {
		return err
	}
	r.read = true
	return nil
}

// nominate builds the nominations of day d and stores each changed one as
// a new revision. A day whose bids are not all settled waits until Grace
// after its end.
func (j *Job) nominate(ctx context.Context, d calendar.Day, due time.Time, r *registry) error {
	span := d.Span()
	if due.Before(span.End) {
		return nil
	}
	in, err := j.store.EnergyBids(ctx, span)
	if err != nil {
		return err
	}
	if len(in) == 0 || !Complete(in) && due.Sub(span.End) < Grace {
		return nil // nothing to nominate, or outcomes still due
	}
	if err := j.load(ctx, r); err != nil {
		return err
	}
	built := Build(Input{Day: d, Bids: in, Assets: r.zones, Configs: r.configs})
	keys := make([]Key, 0, len(built))
	for k := range built {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Key) int { return strings.Compare(a.String(), b.String()) })
	for _, k := range keys {
		if _, _, err := j.store.AddRevision(ctx, k, built[k], j.clock.Now()); err != nil {
			return err
		}
	}
	return nil
}

// Send exchanges every unsent revision and records the answers.
func (j *Job) Send(ctx context.Context) error {
	now := j.clock.Now()
	unsent, err := j.store.ClaimUnsent(ctx, now, now.Add(-ResendAfter))
	if err != nil {
		return err
	}
	for _, r := range unsent {
		files := map[Direction][]byte{}
		for _, d := range Directions {
			if files[d], err = r.File(d).Render(); err != nil {
				return err
			}
		}
		a, err := j.exchange.Send(ctx, r, files)
		if err != nil {
			return err
		}
		status := Rejected
		if a.Accepted {
			status = Acknowledged
		}
		if err := j.store.Answer(ctx, r.Key, r.Number, status, a.Detail, j.clock.Now()); err != nil {
			return err
		}
	}
	return nil
}
