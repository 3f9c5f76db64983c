package story

// GroupTuning exposes the built-in link model's grouping settings to the tests (the
// evaluation's -group-set), to reproduce the figures of other settings.
var GroupTuning = map[string]*float64{
	"threshold": &defaultLinkModel.Threshold,
	"alpha":     &defaultLinkModel.Alpha,
	"strong":    &defaultLinkModel.StrongThreshold,
	"minprob":   &defaultLinkModel.MinProb,
	"name":      &groupNameWeight,
	"number":    &groupNumberWeight,
	"phrase":    &groupPhraseWeight,
	"lead":      &groupLeadWeight,
}

// DefaultLinkModel is a copy of the built-in link model.
func DefaultLinkModel() LinkModel { return defaultLinkModel }
