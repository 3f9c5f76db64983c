package enrich

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/morningdeck/morningdeck/app/wordindex"
	"github.com/morningdeck/morningdeck/app/wordvec"
)

// The news-topic model (issue 25): a naive Bayes model of seventeen sections of general news —
// business, entertainment, health and technology (the data set's topics), and US politics,
// world, sports, crime, religion, the news media, comedy, style, parenting, wellness, food, the
// environment and science (learned by distant supervision: the data set does not label them;
// comedy and style count for entertainment, wellness for health) — learned by scripts/newstopics from a month of the UCI News
// Aggregator's headlines (Gasparetti, 2016; CC BY 4.0; 62,295 headlines of May 2014, none of
// the evaluations' months). It knows that "Emma Stone joins Woody Allen's next film" is
// entertainment and "Rebels seize government buildings in Donetsk" world news without the
// words, which word vectors alone read only loosely ("sports" is nearer a Fox News anchor than
// a baseball score there): a broad interest ("entertainment", "world news", "sports") is read
// by the section it names, and an item by the section its words are of. Each word's
// probabilities are smoothed toward its overall frequency (Dirichlet, μ 1000), so that a word
// a small section never had is not likelier there than in a large one.

//go:embed newstopics.tsv.gz
var newsTopicsGz []byte

// newsTopicCount is the number of topics: b, e, m, t, p, w, s, c, r, d, y, f, k, l, v, x, z.
const newsTopicCount = 17

// newsTopicNames are the topics, in the model's order.
var newsTopicNames = [newsTopicCount]string{"business", "entertainment", "health", "technology",
	"politics", "world", "sports", "crime", "religion", "media",
	"comedy", "style", "parenting", "wellness", "food", "environment", "science"}

// newsTopicCodes are the topics' letters in the model's file, in the model's order.
const newsTopicCodes = "bemtpwscrdyfklvxz"

// newsTopicParent is the topic a section is a part of, -1 for none.
var newsTopicParent = [newsTopicCount]int{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 1, -1, 2, -1, -1, -1}

// newsTopics is the model as it is kept: the words sorted in one string and their
// log-probabilities as hundredths in one slice, a few hundred KB for 11,000 words (a map of
// float arrays and a vector a word took 7.6 MB of live heap, a seventh of the first
// ingestion's peak; issue 26).
var newsTopics struct {
	once  sync.Once
	prior [newsTopicCount]float64
	blob  string   // the words, in byte order, one after another
	offs  []uint32 // word i is blob[offs[i]:offs[i+1]]
	vals  []int16  // word i's log-probability in each topic, in hundredths
	// near are the model's words that have a vector (their index and the vector's rank), for
	// reading an interest's word with its neighbours (segmentTopic).
	near []nearWord
	// seeds are the vectors of the one-word seeds of each section the data set does not label
	// (scripts/newstopics): what the section is about, read through the word vectors for an
	// item whose words the headlines never had ("yankees", "linebacker", "mascara").
	seeds     [newsTopicCount][]wordvec.Vector
	seedWords [newsTopicCount][]string // the one-word seeds, as written
	seedOnce  [newsTopicCount]sync.Once
	seedTab   [newsTopicCount][]int16 // seedCos of each vector rank, in 30,000ths
	index     *wordindex.Index        // the words' positions by hash (64 KB)
}

type nearWord struct {
	word, rank int32
}

// newsWordAt is the model's word i.
func newsWordAt(i int) string { return newsTopics.blob[newsTopics.offs[i]:newsTopics.offs[i+1]] }

// newsWord is w's log-probabilities in each topic (hundredths); ok is false for a word the
// model does not know.
func newsWord(w string) (row []int16, ok bool) {
	i := newsTopics.index.Find(w)
	if i < 0 {
		return nil, false
	}
	return newsTopics.vals[i*newsTopicCount : (i+1)*newsTopicCount], true
}

// Parameters of reading a text's topic, chosen on the development headlines only
// (TestBroadInterestEval's development split; the held-out split was never looked at to choose
// them): the gain 3 and newsInterestSure 0.6 took development NDCG@10 0.752 → 0.908 (gain 2:
// 0.822, 4: 0.908; sure 0.8: 0.885), and an interest's own word weighing 3 among its
// neighbours (1 and 2: 0.908, 3: 0.950, 5: 0.927; TestBroadTopicEval's development topics 0.617,
// 0.753, 0.503); the others moved it by 0.01 at most. With the ten sections (session 14) the
// gain, the floor and full, topicalLexFloor and the model's smoothing were chosen again on the
// mean of four development figures (broad, fine subjects, news sections, specific interests;
// BENCHMARKS.md): gain 3 (2: 0.731, 4: 0.729), floor 0.5 and full 0.99 (0.7/0.99: 0.756,
// 0.4/0.99: 0.763, 0.3/0.9: 0.755), topicalLexFloor 0.6 (0.3: 0.755), smoothing μ 1000
// (Laplace: 0.731, 3000: 0.737, 10000: 0.744); 0.765 with these. With seventeen sections the
// floor and full again: 0.3 and 0.95 (0.5/0.99: 0.774, 0.4/0.99: 0.776, 0.2/0.9: 0.779; gain
// 2.5: 0.765, 3.5: 0.772); 0.780.
var (
	// newsTemper divides the summed log-likelihoods by the text's number of known words to
	// this power: naive Bayes is over-confident on long texts (0: not tempered).
	newsTemper = 0.5
	// newsTopicFloor and newsTopicFull: an item's probability of the interest's topic at
	// newsTopicFloor adds nothing, at newsTopicFull as much as a full semantic match.
	newsTopicFloor, newsTopicFull = 0.3, 0.95
	// newsInterestSure is how sure the model must be of the topic an interest's segment names
	// for it to be read by topic ("entertainment" is; "cats" is not).
	newsInterestSure = 0.6
	// newsTopicGain is how much more an item wholly of the interest's topic adds than a full
	// semantic match of the word vectors (semWeight): the topic model's reading is the surer.
	newsTopicGain = 3.0
	// newsOwnInformative: an interest's words must give one topic at least this probability on
	// their own (the uniform is 1/17) to be read by topic.
	newsOwnInformative = 0.4
	// newsOwnWeight is how much an interest's own word weighs among its neighbours.
	newsOwnWeight = 3.0
	// newsBodyWords is how many words of the body are read after the title.
	newsBodyWords = 40
)

func loadNewsTopics() {
	newsTopics.offs = []uint32{0}
	newsTopics.index = wordindex.New(0, nil)
	zr, err := gzip.NewReader(bytes.NewReader(newsTopicsGz))
	if err != nil {
		return
	}
	var blob strings.Builder
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) == 3 && f[0] == "#seeds" {
			if k := strings.Index(newsTopicCodes, f[1]); k >= 0 && len(f[1]) == 1 {
				for _, s := range strings.Split(f[2], ",") {
					if strings.Contains(s, " ") {
						continue
					}
					newsTopics.seedWords[k] = append(newsTopics.seedWords[k], s)
					if r := wordvec.Rank(s); r >= 0 {
						if v := wordvec.Of(r); v.Unit() {
							newsTopics.seeds[k] = append(newsTopics.seeds[k], v)
						}
					}
				}
			}
			continue
		}
		if len(f) != newsTopicCount+1 {
			continue
		}
		if f[0] == "#prior" {
			for k := range newsTopicCount {
				n, _ := strconv.Atoi(f[k+1])
				newsTopics.prior[k] = float64(float32(n) / 100)
			}
			continue
		}
		i := int32(len(newsTopics.offs) - 1)
		blob.WriteString(f[0])
		newsTopics.offs = append(newsTopics.offs, uint32(blob.Len()))
		for k := range newsTopicCount {
			n, _ := strconv.Atoi(f[k+1])
			newsTopics.vals = append(newsTopics.vals, int16(max(math.MinInt16, min(math.MaxInt16, n))))
		}
		if r := wordvec.Rank(f[0]); r >= 0 {
			newsTopics.near = append(newsTopics.near, nearWord{i, int32(r)})
		}
	}
	newsTopics.blob = blob.String()
	newsTopics.offs = slices.Clip(newsTopics.offs)
	newsTopics.vals = slices.Clip(newsTopics.vals)
	newsTopics.near = slices.Clip(newsTopics.near)
	newsTopics.index = wordindex.New(len(newsTopics.offs)-1, newsWordAt)
}

// newsTopicOf is the probability of each topic for words (NewsWords of a text), each distinct
// word counted once; ok is false when the model knows none of them.
func newsTopicOf(words []string) (p [newsTopicCount]float64, ok bool) {
	return newsTopicWeighted(words, 0)
}

// newsTopicWeighted is newsTopicOf with the first own words weighing newsOwnWeight each (an
// interest's words among their neighbours).
func newsTopicWeighted(words []string, own int) (p [newsTopicCount]float64, ok bool) {
	newsTopics.once.Do(loadNewsTopics)
	var ll [newsTopicCount]float64
	var n float64
	seen := make(map[string]bool, len(words))
	for i, w := range words {
		v, known := newsWord(w)
		if !known || seen[w] {
			continue
		}
		seen[w] = true
		wt := 1.0
		if i < own {
			wt = newsOwnWeight
		}
		n += wt
		for k := range newsTopicCount {
			ll[k] += wt * float64(float32(v[k])/100)
		}
	}
	if n == 0 {
		return p, false
	}
	scale := 1.0
	if newsTemper > 0 {
		scale = 1 / math.Pow(n, newsTemper)
	}
	top := math.Inf(-1)
	for k := range newsTopicCount {
		ll[k] = newsTopics.prior[k] + ll[k]*scale
		top = max(top, ll[k])
	}
	var sum float64
	for k := range newsTopicCount {
		p[k] = math.Exp(ll[k] - top)
		sum += p[k]
	}
	for k := range newsTopicCount {
		p[k] /= sum
	}
	return p, true
}

// NewsWords are a text's words as the news-topic model reads them: lower case runs of letters
// (with digits and inner apostrophes), two letters or more, a possessive 's dropped. The
// training script reads headlines with it too.
func NewsWords(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}) {
		f = strings.TrimSuffix(strings.Trim(f, "'"), "'s")
		if len(f) < 2 || strings.IndexFunc(f, unicode.IsLetter) < 0 {
			continue
		}
		out = append(out, f)
	}
	return out
}

// newsTopic is the item's topic probabilities: its title and the first newsBodyWords words of
// its body. Made once per item.
func (d *doc) newsTopic() ([newsTopicCount]float64, bool) {
	if !d.topicDone {
		d.topicDone = true
		if d.english() {
			d.topic, d.topicOK = newsTopicOf(d.newsWords())
		}
	}
	return d.topic, d.topicOK
}

// english reports whether the news-topic model may read the item: it is in English, or in no
// language the stop words tell, or its language is a guess (langEvidence not sure: fewer than
// three of the language's stop words, or another language near as many — "dies", "a" made 53
// of the topic sample's 3,001 English headlines look German or Spanish, none of them surely).
// Until session 18 a guess was any item under 20 words of body, and a German item with a
// sentence of description (heise's feeds) was read as English. The model knows English
// headlines' words only, and read a German or French text by its false friends ("die", "hat":
// an item about clocks going back was about photography). An item in another script
// (Cyrillic, Arabic: latinScript) is read by neither. The word vectors still read every
// Latin-script item: other languages' tech text carries English loanwords ("Exploit",
// "Smartphone"), and reading them as English-only cost "computer security" 0.01 of NDCG@10
// and its feedback 0.74 → 0.59.
func (d *doc) english() bool {
	return !d.script && (d.lang == langEN || d.lang == langOther || !d.langSure)
}

// newsWords are the words the news-topic model reads of the item: its title's and the first
// newsBodyWords of its body. Made once per item.
func (d *doc) newsWords() []string {
	if d.readWords == nil {
		words := NewsWords(d.titleText)
		body := NewsWords(firstBytes(d.bodyText, 16*newsBodyWords))
		d.readWords = append(words, body[:min(len(body), newsBodyWords)]...)
	}
	return d.readWords
}

// firstBytes is the start of s, at most n bytes, cut at a space.
func firstBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], ' '); i > 0 {
		return s[:i]
	}
	return s[:n]
}

// segmentTopic is the topic a segment of an interest names ("entertainment", "diet and
// fitness"), when the model is sure of it (newsInterestSure); -1 otherwise.
func segmentTopic(label string) int {
	words := NewsWords(label)
	if k := namedTopic(words); k >= 0 {
		return k
	}
	p, ok := newsTopicWeighted(withNeighbours(words), len(words))
	if !ok {
		return -1
	}
	best := argmax(p)
	if p[best] < newsInterestSure {
		return -1
	}
	// The words themselves must be news-topic words: the model knows four topics, and a subject
	// that is none of them is only near one. A word it never saw in the headlines ("parenting",
	// "cooking") or that it saw evenly across them ("religion", "world", "education": no topic
	// above newsOwnInformative) says no topic: abstain rather than force it into the nearest.
	own, ok := newsTopicOf(words)
	if !ok || own[argmax(own)] < newsOwnInformative {
		return -1
	}
	if !meaningAgrees(words, best) {
		return -1
	}
	return best
}

// The model learned its words from one month of one aggregator, whose topics are what that
// month's news made of them: India's elections were market news then, so "elections",
// "parliament" and "democracy" read as business, and an interest in elections took every item
// the model reads as business, a project's commits among them ("Fix JavaScript linter path in
// GitHub Actions": 85, "About elections: actions, path"). The word vectors (Wikipedia and
// newswire, many years) know what the words mean apart from that month. So a segment is read
// by the section the model gives it only when the word vectors agree: the section, its parent
// or one of its parts is among the newsMeaningTop sections whose meaning is nearest the
// segment's. A section's meaning is the mean of the unit vectors of its newsMeaningWords most
// telling words (each word's p(w|k)·log(p(w|k)/p̄(w)), its share of what sets the section
// apart), learned from the model itself; a segment whose words have no vector is not vetoed.
const (
	newsMeaningTop   = 3
	newsMeaningWords = 300
)

// sectionMeanings are the sections' meanings in the word vectors' space.
var sectionMeanings = sync.OnceValue(func() [newsTopicCount]wordvec.Vector {
	newsTopics.once.Do(loadNewsTopics)
	var out [newsTopicCount]wordvec.Vector
	type telling struct {
		rank  int32
		score float64
	}
	ws := make([]telling, len(newsTopics.near))
	mean := make([]float64, len(newsTopics.near)) // each word's mean probability over the sections
	for i, nw := range newsTopics.near {
		for _, l := range newsTopics.vals[int(nw.word)*newsTopicCount : (int(nw.word)+1)*newsTopicCount] {
			mean[i] += math.Exp(float64(l)/100) / newsTopicCount
		}
	}
	for k := range newsTopicCount {
		for i, nw := range newsTopics.near {
			pk := math.Exp(float64(newsTopics.vals[int(nw.word)*newsTopicCount+k]) / 100)
			ws[i] = telling{nw.rank, pk * math.Log(pk/mean[i])}
		}
		sort.Slice(ws, func(a, b int) bool {
			return ws[a].score > ws[b].score || ws[a].score == ws[b].score && ws[a].rank < ws[b].rank
		})
		for _, w := range ws[:min(len(ws), newsMeaningWords)] {
			addUnit(&out[k], int(w.rank))
		}
		out[k].Unit()
	}
	return out
})

// addUnit adds the unit vector of the word of vector rank r to sum, and reports whether it had
// one.
func addUnit(sum *wordvec.Vector, r int) bool {
	v := wordvec.Of(r)
	if !v.Unit() {
		return false
	}
	for i := range sum {
		sum[i] += v[i]
	}
	return true
}

// meaningAgrees reports whether section k, its parent or one of its parts is among the
// newsMeaningTop sections nearest the meaning of words (true when no word has a vector).
func meaningAgrees(words []string, k int) bool {
	var sv wordvec.Vector
	found := false
	for _, w := range words {
		if r := wordvec.Rank(w); r >= 0 && addUnit(&sv, r) {
			found = true
		}
	}
	if !found || !sv.Unit() {
		return true
	}
	means := sectionMeanings()
	var cos [newsTopicCount]float32
	for j := range newsTopicCount {
		cos[j] = wordvec.Dot(&sv, &means[j])
	}
	for j := range newsTopicCount {
		if j != k && newsTopicParent[j] != k && newsTopicParent[k] != j {
			continue
		}
		nearer := 0
		for i := range newsTopicCount {
			if cos[i] > cos[j] {
				nearer++
			}
		}
		if nearer < newsMeaningTop {
			return true
		}
	}
	return false
}

// namedTopic is the topic a segment names by the topic's own name ("politics", "world news",
// "US politics", "sports"): the name and at most one other word, which qualifies it. -1 when
// it names none. A section's name is what a reader writes for it, whatever else the word is
// near ("world" in the headlines is mostly the World Cup and the World Bank).
func namedTopic(words []string) int {
	if len(words) == 0 || len(words) > 2 {
		return -1
	}
	for k, name := range newsTopicNames {
		if strings.Contains(name, " ") {
			continue // "science and technology" is read by its words
		}
		for _, w := range words {
			if w == name {
				return k
			}
		}
	}
	return -1
}

// topicWords are the words of an item's title and opening that say it is of topic k (twice as
// likely in k as in any other topic, or likelier there and near the segment's meaning), at most
// n, those nearest the segment's meaning first:
// what the reason names for an item read by its topic ("About world: donetsk, rebels" rather
// than the words nearest the word "world"; "About entertainment: film" before "emma, stone").
func topicWords(sv *segVector, d *doc, n int) []string {
	k := sv.topic
	newsTopics.once.Do(loadNewsTopics)
	type cand struct {
		w string
		m float32
	}
	var cands []cand
	seen := map[string]bool{}
	for _, w := range d.newsWords() {
		if seen[w] || len(w) < 3 || langStops[langEN][w] || calendarWords[w] {
			// An English function word says nothing of a subject ("About politics: and, the");
			// the model reads English only, so another language's ("war", "die") is a word.
			continue
		}
		seen[w] = true
		m := float32(-1) // how much likelier in k than in any other topic, by the model
		if v, ok := newsWord(w); ok {
			in, other := v[k], int16(math.MinInt16)
			for j := range newsTopicCount {
				switch {
				case newsTopicParent[j] == k: // a part of the topic ("comedy" of entertainment)
					in = max(in, v[j])
				case j != k:
					other = max(other, v[j])
				}
			}
			m = float32(in-other) / 100
		}
		near, seeded := float32(-1), false
		if r := wordvec.Rank(w); r >= 0 {
			if wv := wordvec.Of(r); wv.Unit() {
				near = sv.about(&wv)
				// a word near the section's seeds, for an interest that names the section
				seeded = sv.named && float64(seedCos(r, k)) >= seedLo
			}
		}
		if seeded || m >= 0 && (m >= float32(math.Ln2) || near >= 0.3) {
			cands = append(cands, cand{w, near})
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].m > cands[b].m })
	var out []string
	for _, c := range cands[:min(n, len(cands))] {
		out = append(out, c.w)
	}
	return out
}

// topicShare is the probability of topic k with its parts.
func topicShare(p *[newsTopicCount]float64, k int) float64 {
	s := p[k]
	for c, parent := range newsTopicParent {
		if parent == k {
			s += p[c]
		}
	}
	return s
}

func argmax(p [newsTopicCount]float64) int {
	best := 0
	for k := range newsTopicCount {
		if p[k] > p[best] {
			best = k
		}
	}
	return best
}

// newsNeighbours is how many of a word's nearest words (cosine ≥ newsNeighbourCos, among the
// model's) read an interest's word with it: one word ("entertainment", also a company's name)
// says less of a topic than it and its neighbours (films, movies, music, celebrity…).
var (
	newsNeighbours   = 10
	newsNeighbourCos = float32(0.45)
)

// withNeighbours is words with the nearest words of each.
func withNeighbours(words []string) []string {
	newsTopics.once.Do(loadNewsTopics)
	out := append([]string(nil), words...)
	for _, w := range words {
		r := wordvec.Rank(w)
		if r < 0 {
			continue
		}
		v := wordvec.Of(r)
		if !v.Unit() {
			continue
		}
		type cand struct {
			word string
			cos  float32
		}
		var best []cand
		for _, nw := range newsTopics.near {
			if int(nw.rank) == r {
				continue
			}
			nv := wordvec.Of(int(nw.rank))
			if !nv.Unit() {
				continue
			}
			c := wordvec.Dot(&v, &nv)
			if c < newsNeighbourCos {
				continue
			}
			word := newsWordAt(int(nw.word))
			if len(best) < newsNeighbours {
				best = append(best, cand{word, c})
			} else if c > best[len(best)-1].cos {
				best[len(best)-1] = cand{word, c}
			} else {
				continue
			}
			sort.Slice(best, func(a, b int) bool {
				return best[a].cos > best[b].cos || best[a].cos == best[b].cos && best[a].word < best[b].word
			})
		}
		for _, c := range best {
			out = append(out, c.word)
		}
	}
	return out
}

// topicCloseness is how much an item is of the segment's topic: 0 at newsTopicFloor or
// below, 1 from newsTopicFull.
func topicCloseness(sv *segVector, d *doc) float64 {
	if sv.topic < 0 {
		return 0
	}
	p, ok := d.newsTopic()
	if !ok {
		return 0
	}
	c := max(0, min(1, (topicShare(&p, sv.topic)-newsTopicFloor)/(newsTopicFull-newsTopicFloor)))
	if sv.named {
		c = max(c, seedReading(d, sv.topic))
	}
	if c == 0 {
		return c
	}
	dv, ok := d.vector()
	if !ok {
		return 0
	}
	// A subject is often a part of its topic ("comedy", "celebrities" of entertainment; "science"
	// of science and technology): an item of the topic counts for it as far as it is as close to
	// the subject as to the topic's own name — a comedian for "comedy", not a singer. The topic
	// itself ("entertainment") is read whole. Chosen over an absolute closeness (development
	// 0.610) on TestFineTopicEval's development split: 0.591 → 0.647 (held out 0.508 → 0.548).
	own := float64(sv.about(dv))
	name := topicNameCloseness(sv.topic, dv)
	if own >= name {
		return c
	}
	return c * max(0, own) / name
}

// A section named by its name ("sports", "religion", "media") is also read through the word
// vectors: an item is of the section as far as its two words nearest the section's seeds
// (scripts/newstopics: "nba", "baseball", "pope", "journalist" …) are near them. The model
// knows only the words of a month of one aggregator's headlines, which has few sports,
// style or food headlines and none of later years; GloVe (Wikipedia and newswire) knows that
// "yankees" and "linebacker" go with "baseball" and "quarterback", "archdiocese" with
// "catholic", "mascara" with "makeup". The item counts the better of the two readings. Only
// for a segment that names a section by its name: read for any topical segment, development
// NDCG@10 of the broad interests fell 0.955 → 0.920 ("diet and fitness" found fitness apps).
//
// seedLo, seedHi: an item whose two words nearest the seeds are at seedLo (cosine, mean of
// the two) is not of the section by them; at seedHi wholly. Chosen on the mean of the four
// development figures (BENCHMARKS.md, session 15): 0.5–0.9 gave 0.8355 (0.4–0.9: 0.833,
// 0.6–0.9: 0.8352, 0.5–1.0: 0.8352, 0.6–1.0: 0.8295; before: 0.780).
var seedLo, seedHi = 0.5, 0.9

// sectionSeedWords are section k's first n one-word seeds (what the Settings page shows the
// section is read as).
func sectionSeedWords(k, n int) []string {
	newsTopics.once.Do(loadNewsTopics)
	w := newsTopics.seedWords[k]
	return slices.Clone(w[:min(n, len(w))])
}

// seedCos is the highest cosine of the word of vector rank r with section k's seeds (-1 for
// a section without seeds). The cosines of all the vectors' words with a section's seeds are
// worked out once, when a reader first asks for the section (60,000 × its seeds: a tenth of a
// second here), and kept in 30,000ths: 120 KB a section, where working them
// out for each item took a third of the enrichment's time.
func seedCos(r, k int) float32 {
	newsTopics.seedOnce[k].Do(func() {
		seeds := newsTopics.seeds[k]
		if len(seeds) == 0 {
			return
		}
		tab := make([]int16, wordvec.Len())
		for i := range tab {
			v := wordvec.Of(i)
			best := float32(-1)
			if v.Unit() {
				for j := range seeds {
					best = max(best, wordvec.Dot(&v, &seeds[j]))
				}
			}
			tab[i] = int16(math.Round(float64(best) * 30000))
		}
		newsTopics.seedTab[k] = tab
	})
	if newsTopics.seedTab[k] == nil {
		return -1
	}
	return float32(newsTopics.seedTab[k][r]) / 30000
}

// seedReading is how much the item's words are of section k by the word vectors: the mean of
// its two words' highest cosines with k's seeds, scaled from seedLo to seedHi.
func seedReading(d *doc, k int) float64 {
	newsTopics.once.Do(loadNewsTopics)
	if len(newsTopics.seeds[k]) == 0 {
		return 0
	}
	if !d.seedDone[k] {
		d.seedDone[k] = true
		d.seedE[k] = seedTop2(d.newsRanks(), k)
	}
	return seedScale(d.seedE[k])
}

// seedScale maps a seed closeness (seedTop2) to 0 at seedLo, 1 from seedHi.
func seedScale(e float64) float64 {
	return max(0, min(1, (e-seedLo)/(seedHi-seedLo)))
}

// seedTop2 is the mean of the two highest seedCos of words (vector ranks) with section k.
func seedTop2(ranks []int, k int) float64 {
	var top [2]float32
	for _, r := range ranks {
		best := seedCos(r, k)
		if best > top[0] {
			top[0], top[1] = best, top[0]
		} else if best > top[1] {
			top[1] = best
		}
	}
	return float64(top[0]+top[1]) / 2
}

// newsRanks are the vector ranks of the item's distinct newsWords that have one. Made once
// per item (an interest may name several sections).
func (d *doc) newsRanks() []int {
	if d.newsRank == nil {
		d.newsRank = make([]int, 0, 16)
		seen := map[string]bool{}
		for _, w := range d.newsWords() {
			if seen[w] {
				continue
			}
			seen[w] = true
			if calendarWords[w] {
				continue // when, not what: no section's word
			}
			if r := wordvec.Rank(w); r >= 0 {
				d.newsRank = append(d.newsRank, r)
			}
		}
	}
	return d.newsRank
}

// topicalLexFloor is how much of a topical interest's word match counts in an item of none of
// its topics.
var topicalLexFloor = 0.6

// topicalCloseness is, for an interest that names news topics by their names ("world news",
// "sports", "religion"; not subjects of a topic, "comedy" or "parenting"), how much the item is of the
// closest of its topics; ok is false for other interests. The other segments of such an
// interest may be words the model reads as a section ("style and beauty", "US politics,
// Congress and elections"): their mentions are the section's words too ("Sally Beauty confirms
// data breach" is not style; development mean 0.8355 → 0.8415 with them, session 15).
func topicalCloseness(spec *interestSpec, d *doc) (float64, bool) {
	if !useNewsTopics || len(spec.vecs) == 0 {
		return 0, false
	}
	best, named := 0.0, false
	for i := range spec.vecs {
		if !spec.vecs[i].named && spec.vecs[i].topic < 0 {
			return 0, false
		}
		named = named || spec.vecs[i].named
		best = max(best, topicCloseness(&spec.vecs[i], d))
	}
	return best, named
}

// topicNameVecs are the vectors of the topics' names' words.
var topicNameVecs = sync.OnceValue(func() [newsTopicCount][]wordvec.Vector {
	var out [newsTopicCount][]wordvec.Vector
	for k, name := range newsTopicNames {
		for _, w := range strings.Fields(name) {
			if w == "and" {
				continue
			}
			if r := wordvec.Rank(w); r >= 0 {
				if v := wordvec.Of(r); v.Unit() {
					out[k] = append(out[k], v)
				}
			}
		}
	}
	return out
})

// topicNameCloseness is how close an item is to the name of a topic (the closest of its words).
func topicNameCloseness(topic int, dv *wordvec.Vector) float64 {
	best := float32(-1)
	for i := range topicNameVecs()[topic] {
		best = max(best, wordvec.Dot(&topicNameVecs()[topic][i], dv))
	}
	return float64(best)
}

// calendarWords are the English names of days and months and their neighbours: news says when
// ("Senate votes on Thursday"), which is no subject, though in the word vectors, learned from
// newswire, "thursday" lies near the politics seeds ("About US politics: president, thursday").
var calendarWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`monday tuesday wednesday thursday friday saturday sunday today yesterday tomorrow
		tonight weekend january february march april june july august september october november december`) {
		m[w] = true
	}
	return m
}()
