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

// GroupPair is the similarity and shared words of two stories among stories (for reading
// disagreements).
func GroupPair(stories []Story, a, b int) (float64, int) {
	ix := newGroupIndex(stories, 40)
	return groupSimilarity(ix.vecs[a], ix.vecs[b])
}
