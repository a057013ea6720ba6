//go:build !unix

package alarms_test

import "time"

// cpuTime is unknown here: the CPU metric reads 0.
func cpuTime() time.Duration { return 0 }
