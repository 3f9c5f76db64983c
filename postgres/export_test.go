package postgres

// What the external tests reach of the package's insides.

// ErrStopped is the copy stopped by StopAfter.
var ErrStopped = errStopped

// StopAfter makes a copy stop after n batches (a copy interrupted, to resume).
func StopAfter(o *CopyOptions, n int) { o.stopAfter = n }

// CopiedColumns is, by table, the columns the copy from SQLite moves.
func CopiedColumns() map[string][]string {
	out := map[string][]string{}
	for _, t := range copyTables {
		for _, c := range t.cols {
			out[t.name] = append(out[t.name], c.name)
		}
	}
	return out
}

// MigrateTextOnce is migration 0011's Go step.
var MigrateTextOnce = migrateTextOnce
