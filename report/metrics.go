package report

// Metric names of results.csv rows, defined once for the runner, the tables and the checks.
const (
	// MetricCorrect is the number of correctly labelled evaluation documents.
	MetricCorrect = "correct"
	// MetricTotal is the number of evaluation documents (the denominator of MetricCorrect).
	MetricTotal = "total"
	// MetricAccuracy is MetricCorrect / MetricTotal.
	MetricAccuracy = "accuracy"
	// MetricMacroPrecision is the unweighted mean over labels of the precision.
	MetricMacroPrecision = "macro_precision"
	// MetricMacroRecall is the unweighted mean over labels of the recall.
	MetricMacroRecall = "macro_recall"
	// MetricMacroF1 is the unweighted mean over labels of the F1 score.
	MetricMacroF1 = "macro_f1"
	// MetricOpenSetMacroF1 is the PAN 2018/2019 attribution measure (the pan protocol): the F1
	// of every candidate that wrote some evaluation text, averaged; open-set texts ("<UNK>")
	// are no class but count against the precision of the candidate they are attributed to.
	MetricOpenSetMacroF1 = "open_set_macro_f1"
	// MetricMean is a utility measure's mean over the scored document pairs.
	MetricMean = "mean"
	// MetricUnscored counts the pairs a utility measure could not score (NaN).
	MetricUnscored = "unscored"
	// MetricValidationAccuracy is a topic classifier's accuracy on held-out training documents.
	MetricValidationAccuracy = "validation_accuracy"
	// MetricDeltaF1 is the gain ΔF1: utility macro F1 − attack macro F1.
	MetricDeltaF1 = "delta_f1"
	// MetricDeltaRelativeF1 is the gain on F1 relative to the none mechanism.
	MetricDeltaRelativeF1 = "delta_relative_f1"
)

// Task values name what a scorer is scored on: the task of a table column (Column.Task in
// report/render) and of a scorer.
const (
	TaskAuthor  = "author"
	TaskTopic   = "topic"
	TaskUtility = "utility"
)
