package app

import (
	"time"

	"atcp/internal/alarms"
	"atcp/internal/worker"
)

// alarmJobs are the alarm engine's shard jobs over the measurements the
// control loop records; staleAfter is the state's staleness bound
// (TELEMETRY-001 opens beyond it). The shards are evaluated each
// platform second but at most once a real second (a fast demo clock
// would otherwise evaluate hundreds of times a real second), and each
// keeps its lease some real seconds, as the control loop does.
func (a *App) alarmJobs(staleAfter time.Duration) ([]worker.Job, error) {
	every := max(time.Second, time.Duration(a.Config.ClockSpeed)*time.Second)
	e, err := alarms.NewEngine(alarms.EngineOptions{
		Service: a.Alarms, Store: a.Store.Alarms(), Clock: a.Clock, Fleet: a.Assets, Latest: a.Store.Telemetry(),
		Restrictions: a.Store.Restrictions(), Immediates: a.Dispatch, StaleAfter: staleAfter, Every: every,
		LeaseTTL: max(2*every, time.Duration(controlLeaseRealSeconds*a.Config.ClockSpeed*float64(time.Second))),
		Logger:   a.Log,
	})
	if err != nil {
		return nil, err
	}
	return e.Jobs(), nil
}
