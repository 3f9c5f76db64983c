// Package wordvec holds general knowledge of English words, learned from data: 60,000 word
// vectors (GloVe 6B, 100 dimensions, trained on Wikipedia and Gigaword; see LICENSE.md), so that
// "entertainment" is close to film, actor and premiere and "security vulnerabilities" to flaws,
// exploits and malware, whatever the words a text happens to use.
//
// The vectors live in the binary (vectors.bin, made by scripts/wordvec) and are read where
// they are: looking a word up allocates nothing and keeps nothing on the heap.
//
// vectors.bin: "MDWV2\0\0\0", n and dim (uint32); the background (dim float32, see
// Background); n+1 offsets (uint32) of the words in the
// words blob, by frequency rank; n ranks (uint16) in the words' byte order, for binary search;
// n scales (float32); n×dim/2 bytes of 4-bit codes (1…15 standing for -7…7 scales, two
// dimensions a byte, low nibble first); the words blob. Each vector is centred (the mean of
// all of them subtracted) and of unit length before quantizing.
package wordvec

import (
	_ "embed"
	"encoding/base64"
	"encoding/binary"
	"math"
	"sync"
	"unsafe"

	"github.com/morningdeck/morningdeck/app/wordindex"
)

// Dim is the number of dimensions of a vector.
const Dim = 100

// Vector is a word's or a text's position; Unit makes it of length 1.
type Vector [Dim]float32

//go:embed vectors.bin
var data []byte

var (
	le       = binary.LittleEndian
	count    = int(le.Uint32(data[8:]))
	offsAt   = 16 + 4*Dim
	sortedAt = offsAt + 4*(count+1)
	scalesAt = sortedAt + 2*count
	codesAt  = scalesAt + 4*count
	wordsAt  = codesAt + count*Dim/2
	_        = mustDim(int(le.Uint32(data[12:])))
)

func mustDim(d int) int {
	if d != Dim || string(data[:5]) != "MDWV2" {
		panic("wordvec: vectors.bin is not a file of this version")
	}
	return d
}

// Len is how many words have a vector.
func Len() int { return count }

// word is the word of frequency rank r (0: the most frequent).
func word(r int) []byte {
	a, b := le.Uint32(data[offsAt+4*r:]), le.Uint32(data[offsAt+4*r+4:])
	return data[wordsAt+int(a) : wordsAt+int(b)]
}

// Word is the word of frequency rank r.
func Word(r int) string { return string(word(r)) }

// Rank is w's frequency rank (0: the most frequent), -1 when w has no vector. w is looked up
// as given: lower case, as the vectors' words are. A hash look-up (the index is made on the
// first, 256 KB): the binary search it replaced cost ten times as much.
func Rank(w string) int { return index().Find(w) }

var index = sync.OnceValue(func() *wordindex.Index {
	return wordindex.New(count, func(r int) string {
		// The word where it lies in the embedded file, which nothing writes: no copy.
		b := word(r)
		return unsafe.String(unsafe.SliceData(b), len(b))
	})
})

// AddTo adds weight × the vector of rank r to v.
func AddTo(v *Vector, r int, weight float32) {
	s := weight * math.Float32frombits(le.Uint32(data[scalesAt+4*r:]))
	codes := data[codesAt+r*Dim/2 : codesAt+(r+1)*Dim/2]
	for i, c := range codes {
		v[2*i] += s * float32(int(c&15)-8)
		v[2*i+1] += s * float32(int(c>>4)-8)
	}
}

// Of is the vector of rank r.
func Of(r int) Vector {
	var v Vector
	AddTo(&v, r, 1)
	return v
}

// Weight is how much a word of rank r says about a text's subject: frequent words little, rare
// ones more (its frequency falls with its rank, so this stands for an inverse document
// frequency that is the same for every text and every collection).
func Weight(r int) float32 { return float32(math.Log(2 + float64(r)/200)) }

// background is what a text of no subject looks like: the expected value of Weight(r) × the
// vector of a word of running English text, its words drawn with Zipf's frequencies (the
// vectors are in frequency order); computed when the file was made.
var background = func() Vector {
	var v Vector
	for i := range v {
		v[i] = math.Float32frombits(le.Uint32(data[16+4*i:]))
	}
	return v
}()

// Subject turns v, the weighed sum of a text's words (weights summing to total, each word's
// times Weight), into what sets the text apart: its weighed mean less the background, of unit
// length. It reports false for a text with nothing to tell.
func (v *Vector) Subject(total float32) bool {
	if total <= 0 {
		return false
	}
	for i := range v {
		v[i] = v[i]/total - background[i]
	}
	return v.Unit()
}

// Unit scales v to length 1 and reports whether it was not zero.
func (v *Vector) Unit() bool {
	var n float32
	for _, x := range v {
		n += x * x
	}
	if n == 0 {
		return false
	}
	k := 1 / float32(math.Sqrt(float64(n)))
	for i := range v {
		v[i] *= k
	}
	return true
}

// Dot is the dot product: the cosine of two unit vectors.
func Dot(a, b *Vector) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// NearestSubject is the coarse subject (0 to Subjects()-1) closest to v, a text's Subject
// vector: a field of words learned from the vectors by scripts/subjects (sport, medicine,
// markets, music, …), the same for every text and collection.
func NearestSubject(v *Vector) int {
	best, at := float32(-2), 0
	for i := range subjects {
		if d := Dot(v, &subjects[i]); d > best {
			best, at = d, i
		}
	}
	return at
}

// Subjects is the number of coarse subjects.
func Subjects() int { return len(subjects) }

// Code is v as text (for a feature key that must carry a text's meaning): each number as a
// signed byte of 1/127ths, base64 (134 characters). ParseCode reads it back.
func (v *Vector) Code() string {
	var b [Dim]byte
	for i, x := range v {
		b[i] = byte(int8(max(-127, min(127, math.Round(float64(x)*127)))))
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// ParseCode reads a vector written by Code; false when s is not one.
func ParseCode(s string) (Vector, bool) {
	var v Vector
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != Dim {
		return v, false
	}
	for i, c := range b {
		v[i] = float32(int8(c)) / 127
	}
	return v, true
}
