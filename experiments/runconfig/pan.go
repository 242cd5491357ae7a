package runconfig

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"dptext/corpus"
)

// checkPANSets checks, for the pan protocol, that every set names a problem the collection
// lists and that the reader will keep: listed, with its folder and problem-info.json present,
// and in [corpus] language when one is given. It reads the collection's metadata files only
// (corpus.ListPANProblems), so `dptext check` and the start of `dptext run` refuse a set the
// protocol could not find, with the reason, before any text is read.
func (c *Config) checkPANSets() error {
	if c.Protocol.Kind != ProtocolPAN || c.skipFileChecks {
		return nil
	}
	problems, err := corpus.ListPANProblems(c.Resolve(c.Corpus.Path))
	if err != nil {
		return c.ErrAt("corpus", "path", "%v", err)
	}
	byName := map[string]corpus.PANProblemEntry{}
	for _, p := range problems {
		byName[p.Name] = p
	}
	for i, s := range c.Sets {
		p, ok := byName[s.Name]
		path := fmt.Sprintf("sets[%d]", i)
		switch {
		case !ok:
			return c.ErrAt(path, "name", "%q is not a problem of the collection %s; it lists %s", s.Name, c.Corpus.Path,
				strings.Join(slices.Sorted(maps.Keys(byName)), ", "))
		case p.Missing != "":
			return c.ErrAt(path, "name", "problem %q is listed by the collection, but %s", s.Name, p.Missing)
		case c.Corpus.Language != "" && p.Language == "":
			return c.ErrAt(path, "name", "problem %q has no language in the collection's metadata, so [corpus] language = %q cannot select it: leave language unset", s.Name, c.Corpus.Language)
		case c.Corpus.Language != "" && !strings.EqualFold(p.Language, c.Corpus.Language):
			return c.ErrAt(path, "name", "problem %q is in language %q, and [corpus] language = %q leaves it out: remove the set, or set language = %q", s.Name, p.Language, c.Corpus.Language, p.Language)
		}
	}
	return nil
}
