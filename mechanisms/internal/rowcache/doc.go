// Package rowcache is the bounded least-recently-used cache of per-word rows over the
// vocabulary (ratings, cumulative weights) that the sampling mechanisms share.
package rowcache
