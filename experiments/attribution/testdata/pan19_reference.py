"""Run PAN's published baseline, pan19-cdaa-baseline-svm.py, on a PAN collection, with its
files listed in name order.

The script lists each folder with glob.glob, whose order is the file system's; dptext reads
files in name order, and the order decides the calibration folds. This wrapper imports the
unchanged script, makes its glob sorted, records the calibrated probabilities its classifier
gives (probabilities-PROBLEM.json: per unknown text, in name order, one per candidate in
sorted order) and calls its baseline(). Usage:

    python3 pan19_reference.py SCRIPT COLLECTION OUTPUT

SCRIPT is clef19/authorship-attribution/pan19-cdaa-baseline-svm.py of
https://github.com/pan-webis-de/pan-code; experiments/attribution/pan19_baseline_test.go describes how the
committed answers were made.
"""
import glob
import importlib.util
import json
import os
import sys


def main():
    script, collection, output = sys.argv[1:4]
    spec = importlib.util.spec_from_file_location("pan19_baseline", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    unsorted = glob.glob
    module.glob.glob = lambda pattern: sorted(unsorted(pattern))
    recorded = []

    class Recording(module.CalibratedClassifierCV):
        # predict calls predict_proba itself: record only the script's own call.
        inner = False

        def predict(self, X):
            self.inner = True
            try:
                return super().predict(X)
            finally:
                self.inner = False

        def predict_proba(self, X):
            p = super().predict_proba(X)
            if not self.inner:
                recorded.append(p.tolist())
            return p

    module.CalibratedClassifierCV = Recording
    with open(os.path.join(collection, "collection-info.json")) as f:
        problems = [entry["problem-name"] for entry in json.load(f)]
    module.baseline(collection, output)
    for problem, p in zip(problems, recorded):
        with open(os.path.join(output, "probabilities-" + problem + ".json"), "w") as f:
            json.dump(p, f)


if __name__ == "__main__":
    main()
