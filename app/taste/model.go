// Package taste is the reader's taste model: what one reader's feedback taught (Model, a naive
// Bayes model over item features, stored as JSON per user) and Trainer, the app.TasteTrainer
// that builds it from feedback events with the embedded enricher's features.
package taste

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/wordvec"
)

// Model is what one reader's feedback taught: a naive Bayes model over item features (stemmed
// terms "w:…", the source "source:…", topics "topic:…"), trained from weighted feedback events
// and applied as points added to the embedded score, and where the liked and disliked items lie
// in meaning (the "m:" feature, an item's word-vector position: Rocchio's centroids), so that
// an item that says the same in other words ("rocket launch" after likes of "spaceflight"
// items) moves too, where word features alone need the very words. It is deterministic, small (at most
// ModelMaxFeatures features) and cheap to apply (one map look-up per feature), and it
// serializes to JSON (MarshalJSON / ParseModel) so the pipeline can store one per user.
// Not safe for concurrent mutation: train a copy, then swap it in.
type Model struct {
	Version int `json:"version"`
	// Positive and Negative are the summed weights of liked and disliked events.
	Positive float64 `json:"positive"`
	Negative float64 `json:"negative"`
	// Events is the number of events learned.
	Events   int                      `json:"events"`
	Features map[string]*FeatureStats `json:"features"`
	// Liked and Disliked are the summed meaning ("m:" features) of the liked and disliked items,
	// each weighed by its event's weight: where in the space of word vectors the reader's
	// likes and dislikes lie, so that an item of the same meaning in other words moves too.
	Liked    []float64 `json:"liked,omitempty"`
	Disliked []float64 `json:"disliked,omitempty"`
}

// FeatureStats are one feature's summed event weights and how the items showed it.
type FeatureStats struct {
	Pos   float64 `json:"pos"`
	Neg   float64 `json:"neg"`
	Label string  `json:"label"`
}

// Signal is a kind of feedback.
type Signal string

// Feedback signals: explicit ones, and implicit ones from reading.
const (
	SignalMoreLikeThis   Signal = "more"        // "more like this"
	SignalLessLikeThis   Signal = "less"        // "less like this"
	SignalStarred        Signal = "starred"     // starred
	SignalReadToEnd      Signal = "read_to_end" // scrolled to the end on the item page
	SignalOpened         Signal = "opened"      // opened the item or its link
	SignalHidden         Signal = "hidden"      // hid the item
	SignalMarkedUnopened Signal = "read_unopened"
)

// SignalWeights are how much each signal says: positive for liking, negative for not. Explicit
// feedback says most; marking read without opening says little (it may just be catching up).
var SignalWeights = map[Signal]float64{
	SignalMoreLikeThis:   3,
	SignalLessLikeThis:   -3,
	SignalStarred:        2,
	SignalReadToEnd:      1.5,
	SignalOpened:         1,
	SignalHidden:         -2,
	SignalMarkedUnopened: -0.5,
}

// ModelMaxFeatures bounds a model's size; the least informative features go first.
const ModelMaxFeatures = 5000

// modelVersion is the version of the features and the format; a stored model of another
// version is discarded by ParseModel (the features changed meaning).
const modelVersion = 1

// NewModel returns a model that learned nothing.
func NewModel() *Model {
	return &Model{Version: modelVersion, Features: map[string]*FeatureStats{}}
}

// ParseModel reads a model stored as JSON. Empty input, or a model of an older version, gives
// a new model.
func ParseModel(b []byte) (*Model, error) {
	if len(strings.TrimSpace(string(b))) == 0 {
		return NewModel(), nil
	}
	m := &Model{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("The stored reading model is not valid JSON (%v); reset it to start again.", err)
	}
	if m.Version != modelVersion || m.Features == nil {
		return NewModel(), nil
	}
	for k, f := range m.Features {
		if f == nil || math.IsNaN(f.Pos) || math.IsNaN(f.Neg) || math.IsInf(f.Pos, 0) || math.IsInf(f.Neg, 0) {
			delete(m.Features, k)
		}
	}
	return m, nil
}

// Learn adds one feedback event on an item with the given features and labels (from
// Features). Unknown signals are ignored and reported false.
func (m *Model) Learn(sig Signal, keys, labels []string) bool {
	w, ok := SignalWeights[sig]
	if !ok || w == 0 || len(keys) == 0 {
		return false
	}
	m.Events++
	if w > 0 {
		m.Positive += w
	} else {
		m.Negative -= w
	}
	for i, k := range keys {
		if strings.HasPrefix(k, meaningPrefix) {
			// An unreadable one (another version's) is left out, never learned as a word.
			if v, ok := parseMeaning(k); ok {
				if w > 0 {
					m.Liked = addScaled(m.Liked, v, w)
				} else {
					m.Disliked = addScaled(m.Disliked, v, -w)
				}
			}
			continue
		}
		f := m.Features[k]
		if f == nil {
			f = &FeatureStats{}
			m.Features[k] = f
		}
		if w > 0 {
			f.Pos += w
		} else {
			f.Neg -= w
		}
		if i < len(labels) && labels[i] != "" {
			f.Label = labels[i]
		}
	}
	if len(m.Features) > ModelMaxFeatures {
		m.prune()
	}
	return true
}

// prune keeps the ModelMaxFeatures features with the most evidence.
func (m *Model) prune() {
	type kv struct {
		k string
		n float64
	}
	all := make([]kv, 0, len(m.Features))
	for k, f := range m.Features {
		all = append(all, kv{k, f.Pos + f.Neg})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].k < all[j].k
	})
	for _, x := range all[ModelMaxFeatures:] {
		delete(m.Features, x.k)
	}
}

// balanceKeep is the share of the likes' and dislikes' imbalance a word's weight keeps (see
// weight).
const balanceKeep = 0.1

// weight is how much a feature says for (positive) or against an item: the log ratio of the
// weights of liked and disliked events that had it, smoothed by 3 (one "more like this") on
// both sides, so one event moves it a little, evidence on both sides cancels out, and the
// imbalance between how much the reader likes and dislikes does not make every feature of a
// liked item a strong one.
//
// A term of the user's interests ("i:…") is in most items the reader acts on, liked or not: its
// weight is measured against the reader's base rate (naive Bayes with the class totals), so
// that a reader who dismisses more than they like does not teach the model that their interest
// itself is unwelcome ("open source" went negative), while a term that only the liked items
// matched ("exploits", not "computer") counts for them.
func (m *Model) weight(key string, f *FeatureStats) float64 {
	const a = 3.0
	if strings.HasPrefix(key, "i:") {
		return math.Log((f.Pos + a) / (m.Positive + 2*a) * (m.Negative + 2*a) / (f.Neg + a))
	}
	// Class-balanced: the larger class's counts scaled (nearly) to the smaller's mass, so that
	// 18 dislikes of an interest with two relevant items do not outweigh its 2 likes through
	// any word the disliked items share (the held-out falls of session 18: "web, platform" of a
	// browser item, a photographer's blog). balanceKeep of the imbalance is kept; chosen on the
	// development interests among 0 (fully balanced), 0.1, 0.25 and 1 (plain counts) by the
	// rule fixed before (BENCHMARKS.md, session 19).
	pos, neg := f.Pos, f.Neg
	if m.Positive > 0 && m.Negative > 0 {
		if m.Negative > m.Positive {
			r := m.Positive / m.Negative
			neg *= r + balanceKeep*(1-r)
		} else {
			r := m.Negative / m.Positive
			pos *= r + balanceKeep*(1-r)
		}
	}
	return math.Log((pos + a) / (neg + a))
}

// Adjust implements app.Taste: the points an item with these features gets (about ±20 at most)
// and, for the reason, the features that weighed most for and against it.
func (m *Model) Adjust(features []string) (points float64, liked, disliked []string) {
	if m == nil || m.Events == 0 {
		return 0, nil, nil
	}
	type contrib struct {
		label string
		w     float64
	}
	var sum float64
	var cs []contrib
	n := 0
	meaning := 0.0
	nf := len(features)
	for _, k := range features {
		if strings.HasPrefix(k, meaningPrefix) {
			if v, ok := parseMeaning(k); ok {
				meaning = m.meaning(v)
			}
			nf--
			continue
		}
		f := m.Features[k]
		if f == nil {
			continue
		}
		w := m.weight(k, f) * kindWeight(k)
		sum += w
		n++
		label := f.Label
		if label == "" {
			label = k[strings.IndexByte(k, ':')+1:]
		}
		cs = append(cs, contrib{label, w})
	}
	if n == 0 && meaning == 0 {
		return 0, nil, nil
	}
	// Normalized by the item's number of features (so an item the model knows little of moves
	// little, and long items do not weigh more), then squashed.
	norm := math.Sqrt(float64(max(nf, 8)))
	points = 25 * math.Tanh(2*sum/norm+meaningWeight*meaning)
	if meaning != 0 {
		// The meaning, for the reason, as the word it weighs as much as.
		cs = append(cs, contrib{app.TasteSubject, meaningWeight * meaning * norm / 2})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].w > cs[j].w })
	// A feature is named when it weighs over 0.3; the meaning also when it weighs most.
	named := map[string]bool{} // "Rails" (the interest's term) and "rails" (the word) are one
	for i, c := range cs {
		if k := strings.ToLower(c.label); (c.w > 0.3 || c.label == app.TasteSubject && i == 0 && c.w > 0) && len(liked) < 3 && !named[k] {
			named[k] = true
			liked = append(liked, c.label)
		}
	}
	for i := len(cs) - 1; i >= 0; i-- {
		if k := strings.ToLower(cs[i].label); (cs[i].w < -0.3 || cs[i].label == app.TasteSubject && i == len(cs)-1 && cs[i].w < 0) && len(disliked) < 3 && !named[k] {
			named[k] = true
			disliked = append(disliked, cs[i].label)
		}
	}
	return points, liked, disliked
}

var _ app.Taste = (*Model)(nil)

// kindWeight is how much a kind of feature counts: a source or a topic is shared by many items,
// liked or not, so it weighs less than a word.
func kindWeight(key string) float64 {
	switch {
	case strings.HasPrefix(key, "source:"):
		return 0.3
	case strings.HasPrefix(key, "topic:"):
		return 0.5
	}
	return 1
}

// LearnedTerm is a feature and its weight, for the Settings page.
type LearnedTerm struct {
	Label  string  `json:"label"`
	Key    string  `json:"key"`
	Weight float64 `json:"weight"`
}

// Top returns the n features that count most for (positive) and against (negative) an item,
// with at least two events of evidence each.
func (m *Model) Top(n int) (positive, negative []LearnedTerm) {
	var all []LearnedTerm
	for k, f := range m.Features {
		if f.Pos+f.Neg < 2 || strings.HasPrefix(k, meaningPrefix) {
			continue // a meaning an older version learned as a word is no word to show
		}
		label := f.Label
		if label == "" {
			label = k[strings.IndexByte(k, ':')+1:]
		}
		all = append(all, LearnedTerm{Label: label, Key: k, Weight: m.weight(k, f)})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Weight != all[j].Weight {
			return all[i].Weight > all[j].Weight
		}
		return all[i].Key < all[j].Key
	})
	for _, t := range all {
		if t.Weight > 0 && len(positive) < n {
			positive = append(positive, t)
		}
	}
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Weight < 0 && len(negative) < n {
			negative = append(negative, all[i])
		}
	}
	return positive, negative
}

// meaningPrefix starts the feature that carries an item's meaning (Embedded.Features: "m:" and
// its vector, wordvec.Vector.Code). The model sums these per class instead of counting them.
const meaningPrefix = "m:"

func parseMeaning(k string) ([]float64, bool) {
	if !strings.HasPrefix(k, meaningPrefix) {
		return nil, false
	}
	v, ok := wordvec.ParseCode(k[len(meaningPrefix):])
	if !ok {
		return nil, false
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out, true
}

func addScaled(sum, v []float64, w float64) []float64 {
	if len(sum) != len(v) {
		sum = make([]float64, len(v))
	}
	for i := range v {
		sum[i] += w * v[i]
	}
	return sum
}

// meaningWeight is how much the meaning counts beside the words, in the units of the words'
// normalized sum before it is squashed (so ±25 × meaningWeight points per unit of cosine for
// an item the words say nothing of). Chosen on the development interests among 0.25, 0.5, 0.75,
// 1 and 2 (BENCHMARKS.md, session 22): 0.25–0.75 were within 0.001 of each other, 0.25 the best.
const meaningWeight = 0.25

// meaning is how much closer the item's meaning v lies to the liked items' than to the
// disliked ones' (a difference of cosines, -2 to 2).
func (m *Model) meaning(v []float64) float64 {
	return cosine(v, m.Liked) - cosine(v, m.Disliked)
}

func cosine(a, b []float64) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
