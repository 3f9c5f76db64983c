package enrich

// SetSemantic changes the semantic match's parameters for a test (a parameter sweep on the
// development split), and returns a function that puts them back.
func SetSemantic(floor, full, weight float64) (restore func()) {
	f, u, w := semFloor, semFull, semWeight
	semFloor, semFull, semWeight = floor, full, weight
	return func() { semFloor, semFull, semWeight = f, u, w }
}
