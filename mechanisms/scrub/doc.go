// Package scrub holds the PII scrubber: names and numbers removed or replaced by placeholders,
// a heuristic with no formal privacy (guarantee kind "none"), the baseline of what rewriting
// without noise achieves.
package scrub
