package postgres

// What the external tests reach of the package's insides.

// ErrStopped is the copy stopped by StopAfter.
var ErrStopped = errStopped

// StopAfter makes a copy stop after n batches (a copy interrupted, to resume).
func StopAfter(o *CopyOptions, n int) { o.stopAfter = n }
