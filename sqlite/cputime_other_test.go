//go:build !unix

package sqlite_test

import "time"

// cpuTime is not measured here: the benchmark's cpu-ms/op is then 0.
func cpuTime() time.Duration { return 0 }
