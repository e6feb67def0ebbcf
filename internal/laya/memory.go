package laya

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Memory of learned tasks: a request close to a task learned with
// /laya learn is routed with that task's labels, and the model gets the
// lessons of similar tasks. Closeness is the cosine of TF-IDF word vectors
// over the whole dataset, so words common to every coding request weigh
// little.

// Similarity thresholds.
const (
	RouteSimilarity  = 0.6
	LessonSimilarity = 0.45
	maxLessons       = 3
)

var stopwords = sync.OnceValue(func() map[string]bool {
	words := "the a an and or of to in on at for with from by is are be it this that these those i you we me my our your please can could would should will do does did not no so as if then than into about all any some " +
		"o a os as um uma uns umas de do da dos das no na nos nas em para por com sem e ou que se nao isso este esta esse essa ele ela eu voce meu minha seu sua pelo pela ao aos mais mas como ja tambem favor"
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
})

// foldRune strips the diacritics of Latin letters (what NFD + dropping
// combining marks does for the letters requests use).
func foldRune(r rune) rune {
	if r < 0xC0 {
		return r
	}
	const from = "ÀÁÂÃÄÅàáâãäåÇçÈÉÊËèéêëÌÍÎÏìíîïÑñÒÓÔÕÖòóôõöÙÚÛÜùúûüÝýÿ"
	const to = "AAAAAAaaaaaaCcEEEEeeeeIIIIiiiiNnOOOOOoooooUUUUuuuuYyy"
	i := 0
	for _, f := range from {
		if f == r {
			return rune(to[i])
		}
		i++
	}
	if unicode.Is(unicode.Mn, r) {
		return -1
	}
	return r
}

// Tokenize splits a request into memory words: camelCase split, accents
// stripped, lowercased, split on non-alphanumerics, one-letter words and
// stopwords dropped.
func Tokenize(text string) []string {
	var b strings.Builder
	var prev rune
	for _, r := range text {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			b.WriteByte(' ')
		}
		prev = r
		if f := foldRune(r); f >= 0 {
			b.WriteRune(unicode.ToLower(f))
		}
	}
	sw := stopwords()
	var out []string
	for _, w := range strings.FieldsFunc(b.String(), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(w) <= 1 || sw[w] {
			continue
		}
		out = append(out, w)
	}
	return out
}

type vector map[string]float64

func (v vector) dot(o vector) float64 {
	if len(o) < len(v) {
		v, o = o, v
	}
	s := 0.0
	for w, x := range v {
		s += x * o[w]
	}
	return s
}

// Memory indexes the dataset; it rebuilds when the file changes.
type Memory struct {
	path string

	mu    sync.Mutex
	stamp string
	n     int
	df    map[string]int
	tasks []memTask
}

type memTask struct {
	row DatasetRow
	vec vector
}

// Match is a learned task close to a request.
type Match struct {
	Row        DatasetRow
	Similarity float64
}

// NewMemory reads the dataset at path (lazily).
func NewMemory(datasetPath string) *Memory { return &Memory{path: datasetPath} }

func (m *Memory) refresh() {
	st, err := os.Stat(m.path)
	stamp := ""
	if err == nil {
		stamp = fmt.Sprintf("%d:%d", st.ModTime().UnixNano(), st.Size())
	}
	if stamp == m.stamp && m.df != nil {
		return
	}
	m.stamp = stamp
	m.df, m.n, m.tasks = map[string]int{}, 0, nil
	rows, _ := ReadDataset(m.path)
	var docs [][]string
	for _, r := range rows {
		if strings.TrimSpace(r.State.Request) == "" {
			continue
		}
		words := Tokenize(r.State.Request)
		m.n++
		seen := map[string]bool{}
		for _, w := range words {
			if !seen[w] {
				seen[w] = true
				m.df[w]++
			}
		}
		if r.Source == SourceSession {
			m.tasks = append(m.tasks, memTask{row: r})
			docs = append(docs, words)
		}
	}
	for i := range m.tasks {
		m.tasks[i].vec = m.vectorize(docs[i])
	}
}

func (m *Memory) idf(w string) float64 {
	if df, ok := m.df[w]; ok {
		return math.Log(float64(m.n+1)/float64(df+1)) + 1
	}
	return math.Log(float64(m.n+1)) + 1
}

func (m *Memory) vectorize(words []string) vector {
	tf := map[string]int{}
	for _, w := range words {
		tf[w]++
	}
	v := vector{}
	norm := 0.0
	for w, n := range tf {
		x := (1 + math.Log(float64(n))) * m.idf(w)
		v[w] = x
		norm += x * x
	}
	if norm == 0 {
		return v
	}
	norm = math.Sqrt(norm)
	for w := range v {
		v[w] /= norm
	}
	return v
}

// matches returns learned tasks by similarity, best first.
func (m *Memory) matches(request string) []Match {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refresh()
	if len(m.tasks) == 0 {
		return nil
	}
	q := m.vectorize(Tokenize(request))
	var out []Match
	for _, t := range m.tasks {
		if s := q.dot(t.vec); s > 0 {
			out = append(out, Match{Row: t.row, Similarity: s})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Similarity > out[j].Similarity })
	return out
}

// Route returns the learned assessment for request when its best match
// reaches RouteSimilarity and its labels still validate.
func (m *Memory) Route(request string) (Assessment, *Match, bool) {
	for _, mt := range m.matches(request) {
		if mt.Similarity < RouteSimilarity {
			break
		}
		a, err := FromLabels(mt.Row.Expected, mt.Similarity)
		if err != nil {
			continue
		}
		mt := mt
		return a, &mt, true
	}
	return Assessment{}, nil, false
}

// Lessons returns up to three matches at LessonSimilarity or above that
// carry a lesson.
func (m *Memory) Lessons(request string) []Match {
	var out []Match
	for _, mt := range m.matches(request) {
		if mt.Similarity < LessonSimilarity || len(out) == maxLessons {
			break
		}
		if strings.TrimSpace(mt.Row.Lesson) != "" {
			out = append(out, mt)
		}
	}
	return out
}

// Size is the number of learned session tasks.
func (m *Memory) Size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refresh()
	return len(m.tasks)
}

// LessonsText renders lessons as the hidden message body.
func LessonsText(ms []Match) string {
	if len(ms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Lessons from similar tasks done before in this harness (check they still apply):")
	for _, mt := range ms {
		req := strings.Join(strings.Fields(mt.Row.State.Request), " ")
		if r := []rune(req); len(r) > 100 {
			req = string(r[:100]) + "…"
		}
		fmt.Fprintf(&b, "\n  - \"%s\" (%d%% similar): %s", req, int(math.Round(mt.Similarity*100)), strings.TrimSpace(mt.Row.Lesson))
	}
	return b.String()
}
