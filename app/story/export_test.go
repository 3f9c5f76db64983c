package story

// GroupTuning exposes story grouping's weights and switches to the tests (the evaluation's -group-set, and
// the tests that turn a step off to show they can fail).
var GroupTuning = map[string]*float64{
	"name":      &groupNameWeight,
	"number":    &groupNumberWeight,
	"phrase":    &groupPhraseWeight,
	"lead":      &groupLeadWeight,
	"centroid":  &groupCentroidThreshold,
	"coherence": &groupCoherence,
	"outlier":   &groupOutlier,
	"loners":    &groupLoners,
	"far":       &groupFarHours,
}
