//go:build unix

package alarms_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used: on a
// shared machine it measures the work, where wall time measures the wait
// for a core too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
