#!/usr/bin/env python3
"""Reference throughput of nearest-word decoding with batched numpy (BLAS sgemm).

This is the yardstick for dptext's Go decoder (nearest.Decoder): for a batch of noisy
query vectors z, find argmin_v ||z - v||^2 over a vocabulary of V vectors of dimension n,
computed the usual way as argmin_v (||v||^2 - 2 z.v) with one float32 matrix product per
batch. It prints one line ending in words_per_second=<number> per repeat and a median.

    /usr/bin/python3 experiments/bench/decode_reference.py --top-k 100000 --queries 4000 [--vectors F --words W]

Without --vectors the vocabulary is standard normal (seeded), which costs the same to decode.
--vectors names a raw little-endian float32 file of V x n values (row-major, frequency order).
Which BLAS numpy uses: python3 -c "import numpy; numpy.show_config()" (Debian: the
libblas.so.3 alternative; install libopenblas0-pthread for OpenBLAS). OpenBLAS picks its kernel
for the CPU (AVX-512 where present); OPENBLAS_CORETYPE=Haswell restricts it to AVX2/FMA, the
instruction set of dptext's kernels. `dptext bench decode --reference` passes the vocabulary it
decodes as --vectors, so both decode the same words.
"""
import argparse
import statistics
import time

import numpy as np


def decode(queries, vocab, sq_norms, batch, block):
    """Index of the nearest vocabulary row for every query row (float32, ties by argmin)."""
    out = np.empty(len(queries), dtype=np.int64)
    for start in range(0, len(queries), batch):
        q = queries[start:start + batch]
        best = np.full(len(q), np.inf, dtype=np.float32)
        best_idx = np.zeros(len(q), dtype=np.int64)
        for vstart in range(0, len(vocab), block):
            scores = q @ vocab[vstart:vstart + block].T  # sgemm
            scores *= -2.0
            scores += sq_norms[vstart:vstart + block]
            idx = scores.argmin(axis=1)
            val = scores[np.arange(len(q)), idx]
            better = val < best
            best[better] = val[better]
            best_idx[better] = idx[better] + vstart
        out[start:start + batch] = best_idx
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--top-k", type=int, default=100000)
    p.add_argument("--dim", type=int, default=100)
    p.add_argument("--queries", type=int, default=4000)
    p.add_argument("--batch", type=int, default=400, help="queries per product (one document)")
    p.add_argument("--block", type=int, default=0, help="vocabulary rows per product (0: all)")
    p.add_argument("--epsilon", type=float, default=10.0)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--vectors", help="raw float32 file, V x dim, row-major")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()

    rng = np.random.default_rng(a.seed)
    if a.vectors:
        vocab = np.fromfile(a.vectors, dtype=np.float32).reshape(-1, a.dim)[:a.top_k].copy()
    else:
        vocab = rng.standard_normal((a.top_k, a.dim), dtype=np.float32)
    sq_norms = np.einsum("ij,ij->i", vocab.astype(np.float64), vocab.astype(np.float64)).astype(np.float32)

    # Noisy queries as the mechanism makes them: a random vocabulary word plus Laplace noise
    # in n dimensions (radius Gamma(n, scale 1/epsilon), direction uniform on the sphere).
    words = rng.integers(0, len(vocab), a.queries)
    direction = rng.standard_normal((a.queries, a.dim))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    radius = rng.gamma(a.dim, 1.0 / a.epsilon, a.queries)
    queries = (vocab[words] + radius[:, None] * direction).astype(np.float32)

    block = a.block if a.block > 0 else len(vocab)
    rates = []
    for r in range(a.repeats):
        t0 = time.perf_counter()
        decode(queries, vocab, sq_norms, a.batch, block)
        rate = a.queries / (time.perf_counter() - t0)
        rates.append(rate)
        print(f"numpy repeat={r} top_k={len(vocab)} queries={a.queries} batch={a.batch} block={block} "
              f"words_per_second={rate:.1f}")
    print(f"numpy median top_k={len(vocab)} queries={a.queries} batch={a.batch} block={block} "
          f"words_per_second={statistics.median(rates):.1f}")


if __name__ == "__main__":
    main()
