package runconfig

import (
	"errors"
	"fmt"
	"regexp"

	"dptext/internal/configfile"
)

// DrawFacts are what CheckDraws needs of one draw of a set (every repeat's draw when the
// evaluation authors or stories are redrawn): its number of evaluation authors, of evaluation
// documents, and the length in words of the shortest one; SetAuthors counts the evaluation
// authors of every draw of the set together (the verdict's halves split them).
type DrawFacts struct {
	Set                                       string
	Authors, SetAuthors, Documents, MinLength int
}

// CheckDraws refuses, before any cell is computed, every value the run would refuse only once
// it reached a set: the verdict's halves with fewer than 4 authors, an above_chance level
// above 1 for the set's number of authors, [distinguish] pairs above the set's evaluation
// documents or (with verdict_levels) below its authors, and words above its snippets' length.
// `dptext check` runs it on the sets it draws from the corpus, `dptext run` on its own draws.
func (c *Config) CheckDraws(draws []DrawFacts) error {
	for _, f := range draws {
		if err := c.checkDraw(f); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) checkDraw(f DrawFacts) error {
	if v := c.Verdict; v != nil {
		if v.Halves && f.SetAuthors < 4 {
			return c.ErrAt("verdict", "halves", "true: set %q has %d evaluation authors: want at least 4 (2 per half), or halves = false", f.Set, f.SetAuthors)
		}
		if err := c.CheckAboveChance(f.Set, f.Authors); err != nil {
			return err
		}
	}
	d := c.Distinguish
	if d == nil {
		return nil
	}
	// A key left out takes its default: say so, and name the key to set.
	given := func(key string) string {
		if c.isWritten("distinguish", key) {
			return ""
		}
		return " (the default, since [distinguish] has no " + key + ")"
	}
	switch {
	case f.Authors < 2:
		return c.ErrAt("", "distinguish", "set %q has %d author(s): the game needs at least 2 (a neighbour takes another author's words)", f.Set, f.Authors)
	case d.Pairs > f.Documents:
		return c.ErrAt("distinguish", "pairs", "%d%s: set %q has only %d evaluation documents to be x: set pairs to at most %d", d.Pairs, given("pairs"), f.Set, f.Documents, f.Documents)
	case len(d.VerdictLevels) > 0 && d.Pairs < f.Authors:
		return c.ErrAt("distinguish", "pairs", "%d%s: set %q has %d authors, and verdict_levels scores each author's items with the author's pairs: set pairs to at least %d (a multiple of %d weighs the authors equally)",
			d.Pairs, given("pairs"), f.Set, f.Authors, f.Authors, f.Authors)
	case d.Words > f.MinLength:
		return c.ErrAt("distinguish", "words", "%d%s: the evaluation documents of set %q have %d words (the shortest): set words to at most %d", d.Words, given("words"), f.Set, f.MinLength, f.MinLength)
	}
	return nil
}

// setNameRE finds the set or PAN problem an error of the draw names.
var setNameRE = regexp.MustCompile(`(?:set|problem) "([^"]*)"`)

// DataError places an error of reading the corpus or drawing the sets at the config's line
// that chose what failed: the set it names (its authors), else the [protocol] table, else the
// first set. Errors already placed are returned as they are.
func (c *Config) DataError(err error) error {
	var ce *configfile.Error
	if errors.As(err, &ce) {
		return err
	}
	if m := setNameRE.FindStringSubmatch(err.Error()); m != nil {
		for i, s := range c.Sets {
			if s.Name == m[1] {
				return c.ErrAt(fmt.Sprintf("sets[%d]", i), "authors", "%v", err)
			}
		}
	}
	if c.lines.Has("protocol") {
		return c.ErrAt("", "protocol", "%v", err)
	}
	return c.ErrAt("sets[0]", "authors", "%v", err)
}
