//go:build !unix

package story_test

import "time"

// processCPU is not measured here: the benchmarks report 0 CPU seconds.
func processCPU() time.Duration { return 0 }
