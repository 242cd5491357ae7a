// Package rowcache is the bounded least-recently-used cache of per-word rows over the
// vocabulary (ratings, cumulative weights) that the sampling mechanisms share, and the deferred
// draws (Draw, Resolve) through which a batch of documents computes each distinct row once.
package rowcache
