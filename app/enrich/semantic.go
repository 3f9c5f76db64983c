package enrich

import (
	"slices"
	"sort"
	"strings"

	"github.com/morningdeck/morningdeck/app/wordvec"
)

// What an item is about, against what an interest is about, in the word vectors (app/wordvec):
// general knowledge of words learned from data, so that "entertainment" finds films and
// premieres, "world news" foreign affairs, "security vulnerabilities" exploits and malware,
// though the item never says the interest's words. The lexical match stays the evidence that
// names things (a phrase, a name); the vectors add what a topic is about. Both are the same for
// one text whatever else was seen: no collection statistics (a word's weight comes from its
// rank in the vectors' own frequency order).

// Parameters, chosen on the development split of the broad-interest evaluation
// (TestBroadInterestEval: NDCG@10 0.640 with the words alone, 0.741 with these) under the
// ranking evaluation's floors for specific interests (TestRankingEval: 0.899 → 0.898); the
// held-out splits were never used to choose them (broad held-out: 0.653 → 0.825). Reading
// multi-word subjects ("machine learning", "fantasy baseball") this way too, or a word with its
// nearest words, or a weight over 0.3, cost the specific interests 0.02–0.10 on development.
var (
	// semFloor and semFull: a cosine at semFloor adds nothing, one at semFull adds semWeight.
	semFloor, semFull = 0.20, 0.55
	// semWeight is how much a full semantic match adds to an interest's score (a lexical match
	// of the interest's words scores up to 1).
	semWeight = 0.3
	// semBodyWords is how many words of the body are read after the title.
	semBodyWords = 300
)

// segmentVectors are an interest's broad subjects as vectors: the segments of one word
// ("entertainment", "health", "cooking" in "food and cooking"), from the words the user wrote
// (not the lexicon's forms in other languages). A phrase ("security vulnerabilities", "fantasy
// baseball") is a specific subject, matched by its words: the mean of its words' vectors is
// not what it means. A segment that names something (an anchor: a name, an acronym, "Go" the
// language) is matched by its name: what a name's neighbours are about is not the name.
// (about takes the least close of a segment's words, for when phrases are read this way.)
func segmentVectors(spec *interestSpec) []segVector {
	n := len(spec.anchors)
	if n == 0 {
		return nil
	}
	segs := make([]segVector, n)
	seen := map[string]bool{}
	anchorLabel := make([]string, n)
	for _, t := range spec.terms {
		if t.alt > 0 || t.seg < 0 || t.seg >= n {
			continue
		}
		if spec.anchors[t.seg] {
			if !t.part {
				anchorLabel[t.seg] = strings.TrimSpace(anchorLabel[t.seg] + " " + t.display)
			}
			continue
		}
		sv := &segs[t.seg]
		if !t.part {
			sv.label = strings.TrimSpace(sv.label + " " + t.display)
		}
		for _, w := range t.words {
			k := string(rune('0'+t.seg)) + w.lower
			if seen[k] {
				continue
			}
			seen[k] = true
			if r := wordvec.Rank(w.lower); r >= 0 {
				if v := wordvec.Of(r); v.Unit() {
					sv.words = append(sv.words, v)
				}
			}
		}
	}
	out := segs[:0]
	topical := true // every segment names a news topic
	for i, sv := range segs {
		sv.topic = -1
		if spec.anchors[i] {
			// A name that qualifies a news section's name ("US politics", "American politics")
			// asks for the section: it is read by the section as well as matched by its words.
			if k := namedTopic(NewsWords(anchorLabel[i])); k >= 0 {
				if r := wordvec.Rank(newsTopicNames[k]); r >= 0 {
					if v := wordvec.Of(r); v.Unit() {
						out = append(out, segVector{words: []wordvec.Vector{v}, label: anchorLabel[i], topic: k, named: true, seg: i})
						continue
					}
				}
			}
		}
		if len(sv.words) == 1 || len(sv.words) == 2 && commonPhrase(spec, i) {
			sv.topic = segmentTopic(sv.label)
			sv.named = sv.topic >= 0 && namedTopic(NewsWords(sv.label)) == sv.topic
			sv.seg = i
			out = append(out, sv)
		}
		topical = topical && sv.topic >= 0
	}
	// An interest is read by topic only when it is a topic as a whole ("entertainment", "diet
	// and fitness", "movies, music and celebrities"): a topic word beside a name or a phrase
	// qualifies it ("hardware" of "Apple Mac and iPhone hardware", "shares" of "stock market:
	// shares, earnings and IPOs"), and all items of the topic are not what the reader asked for.
	if !topical {
		for i := range out {
			if !out[i].named { // a section named by its name is asked for whatever stands beside it
				out[i].topic = -1
			}
		}
	}
	return out
}

// segVector is what one segment of an interest is about (a vector per word), and the segment
// as the user wrote it.
type segVector struct {
	words []wordvec.Vector
	label string
	topic int  // the news topic it names (segmentTopic), -1 for none
	named bool // it names the topic by the topic's name ("world news", "sports")
	seg   int  // the interest's segment it reads
}

// about is how close the item's vector is to the segment: to the least close of its words.
func (sv *segVector) about(dv *wordvec.Vector) float32 {
	least := float32(1)
	for i := range sv.words {
		least = min(least, wordvec.Dot(&sv.words[i], dv))
	}
	return least
}

// vector is what the item is about: its title's words (three times) and the first words of its
// body, each weighed by how rare it is. Made once per item.
func (d *doc) vector() (*wordvec.Vector, bool) {
	if d.vecDone {
		return &d.vec, d.vecOK
	}
	d.vecDone = true
	if d.script {
		return &d.vec, false // the vectors know English words only
	}
	// Each distinct word is looked up once (displays are lower case already).
	at := make(map[string]int, 64)
	body := 0
	var total float32
	for i, t := range d.seq {
		if t.stop || t.surface == "" {
			continue
		}
		w := float32(1)
		if i < d.seqTitleN {
			w = titleWeight
		} else if body++; body > semBodyWords {
			break
		}
		total += w
		if k, ok := at[t.display]; ok {
			if k >= 0 {
				d.semWords[k].weight += w
			}
			continue
		}
		r := wordvec.Rank(t.display)
		if r < 0 {
			at[t.display] = -1
			continue
		}
		at[t.display] = len(d.semWords)
		d.semWords = append(d.semWords, semWord{rank: r, display: t.display, weight: w})
	}
	for _, sw := range d.semWords {
		wordvec.AddTo(&d.vec, sw.rank, sw.weight*wordvec.Weight(sw.rank))
	}
	d.vecOK = d.vec.Subject(total)
	return &d.vec, d.vecOK
}

// semWord is a distinct word of an item that has a vector, how much it weighs in the item
// (title words three times), in the order the item has them.
type semWord struct {
	rank    int
	display string
	weight  float32
}

// semantic is how much an item is about one of the interest's subjects (see closest), and
// that subject (-1 when none).
func semantic(spec *interestSpec, d *doc) (float64, int) {
	if len(spec.vecs) == 0 {
		return 0, -1
	}
	dv, ok := d.vector()
	if !ok {
		return 0, -1
	}
	c, seg := closest(spec.vecs, dv)
	if !useNewsTopics {
		return c, seg
	}
	// What the item's words say of its topic, where the segment names one.
	for i := range spec.vecs {
		g := newsTopicGain
		if !spec.vecs[i].named && len(spec.vecs) == 1 {
			g = newsSubjectGain
		}
		if t := g * topicCloseness(&spec.vecs[i], d); t > c {
			c, seg = t, i
		}
	}
	return c, seg
}

// newsSubjectGain is newsTopicGain for an interest of one subject that is a part of a news
// topic ("privacy", "smartphones", "comedy"): an item of the topic is about the subject only
// as far as it is close to it, and the topic's probability weighs as a full match of the word
// vectors would, half of it. An interest that is the topic ("technology", "sports") or
// several of its subjects together ("movies, music and celebrities", "diet and fitness") is
// read by the topic as a whole. Read as the topic, a lone subject put every item of the topic
// at 90 — above the items that say it ("privacy": a smart-contract bug and an Alpine Linux
// post at 91, NDCG@10 0.09). Chosen on the development splits (BENCHMARKS.md, session 17),
// the mean of the four figures: 0.7920 at newsTopicGain, 0.7985 at 1.5, 0.8018 at 1, 0.8109 at
// 0.5, 0.8096 at 0; a subject counted alone when no other segment names its topic (rather than
// when it is the interest's only one) gave 0.7904–0.7923 ("diet and fitness" lost its topic).
const newsSubjectGain = 0.5

// useNewsTopics turns the news-topic model's reading on (an evaluation's switch).
var useNewsTopics = true

// closest is how much a text (its Subject vector) is about the closest of subjects: 0 below
// semFloor, 1 from semFull; and which subject (-1 when none counts).
func closest(subjects []segVector, v *wordvec.Vector) (float64, int) {
	best, seg := float32(-1), -1
	for i := range subjects {
		if s := subjects[i].about(v); s > best {
			best, seg = s, i
		}
	}
	c := max(0, min(1, (float64(best)-semFloor)/(semFull-semFloor)))
	if c == 0 {
		return 0, -1
	}
	return c, seg
}

// aboutWords are the item's words closest to a subject (at most k, title first): what makes
// it about the subject, for the reason.
func aboutWords(sv *segVector, d *doc, k int) []string {
	if sv.topic >= 0 {
		if ws := topicWords(sv, d, k); len(ws) > 0 {
			return ws
		}
	}
	type cand struct {
		w string
		s float32
	}
	d.vector()
	var cands []cand
	own := strings.Fields(strings.ToLower(sv.label))
	for i, sw := range d.semWords {
		if i == aboutRead {
			break // the title's words and the opening's say what the item is about
		}
		if len(sw.display) < 3 || slices.Contains(own, sw.display) || calendarWords[sw.display] {
			continue
		}
		v := wordvec.Of(sw.rank)
		v.Unit()
		if s := sv.about(&v); s >= 0.3 {
			cands = append(cands, cand{sw.display, s})
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].s > cands[b].s })
	var out []string
	for _, c := range cands {
		if len(out) == k {
			break
		}
		out = append(out, c.w)
	}
	return out
}

// aboutRead is how many of an item's distinct words (title first) the reason looks among.
const aboutRead = 48

// commonPhrase reports whether segment seg is a phrase of two common words ("world news",
// "stock market"), which says a subject rather than names a thing: read by its meaning, as a
// one-word segment is.
func commonPhrase(spec *interestSpec, seg int) bool {
	for _, t := range spec.terms {
		if t.seg != seg || t.alt > 0 || !t.phrase {
			continue
		}
		if len(t.words) != 2 {
			return false
		}
		for _, w := range t.words {
			if shareIDF(w.share) >= commonWord*rarestIDF() {
				return false
			}
		}
		return true
	}
	return false
}

// commonWord is how common (idf against the rarest word's) both words of a phrase must be for
// the phrase to be read by its meaning.
var commonWord = 0.4
