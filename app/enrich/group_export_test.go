package enrich

// GroupTuning exposes story grouping's weights to the evaluation's parameter sweep.
var GroupTuning = map[string]*float64{
	"name":      &groupNameWeight,
	"number":    &groupNumberWeight,
	"phrase":    &groupPhraseWeight,
	"lead":      &groupLeadWeight,
	"centroid":  &groupCentroidThreshold,
	"coherence": &groupCoherence,
	"outlier":   &groupOutlier,
	"loners":    &groupLoners,
}
