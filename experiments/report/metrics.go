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
	// MetricReciprocalRank is an attacker's mean over the evaluation documents of the true
	// author's reciprocal rank among the candidates (attackers.ReciprocalRank), recorded
	// when a [verdict] matches on it (attack_measure = "reciprocal_rank").
	MetricReciprocalRank = "reciprocal_rank"
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
	// MetricUnchangedWords (a mechanism row) counts the in-vocabulary tokens of a cell's
	// evaluation documents released as themselves: the numerator of unchanged_share, summed
	// over the documents.
	MetricUnchangedWords = "unchanged_words"
	// MetricShareWords (a mechanism row) counts the tokens of a cell's evaluation documents
	// that unchanged_share is a share of (the in-vocabulary tokens for EMD, every token for
	// expmech): the denominator of MetricUnchangedWords.
	MetricShareWords = "share_words"
	// MetricAuditViolations (a privacy row, with [audit]) counts the audit's tests that refute
	// the mechanism's claim at the cell's ε: 0 when the audit passes.
	MetricAuditViolations = "audit_violations"
)

// Task values name what a scorer is scored on: the task of a table column (Column.Task in
// experiments/report/render) and of a scorer.
const (
	TaskAuthor  = "author"
	TaskTopic   = "topic"
	TaskUtility = "utility"
)

// RelativeMetrics are the scores also given relative to the baseline mechanism, as
// "relative_<metric>" rows (SynTF's "relative performance": private / original).
var RelativeMetrics = []string{MetricAccuracy, MetricMacroF1, MetricMacroPrecision, MetricMacroRecall}

// ScorerMetrics lists every metric a scorer's (or a gain's) rows of results.csv may carry: the
// names a [report] table's metric, columns' metric and frontier metrics may use.
func ScorerMetrics() []string {
	out := []string{MetricCorrect, MetricTotal, MetricAccuracy, MetricMacroPrecision, MetricMacroRecall, MetricMacroF1,
		MetricOpenSetMacroF1, MetricMean, MetricUnscored, MetricValidationAccuracy, MetricDeltaF1, MetricDeltaRelativeF1, MetricReciprocalRank}
	for _, m := range RelativeMetrics {
		out = append(out, "relative_"+m)
	}
	return out
}

// PrivacyMetrics lists every metric of the privacy rows (scorer PrivacyScorer: the per-document
// guarantee, its named bounds, the pair bounds and the audit) and the mechanism diagnostics
// (scorer MechanismScorer) dptext writes: the names a [report] table's privacy_metrics may use.
// A mechanism whose Guarantee or Diagnose gives a new name adds it here
// (TestPrivacyMetricsListEveryMechanismsNames in registry checks every registered one).
var PrivacyMetrics = []string{
	// privacy rows of every mechanism with a guarantee (experiments/runner/privacy.go)
	"epsilon_doc", "log_multiplier_mean", "log_multiplier_infinite_share", "audited_eps_lcb", "audited_eps_ceiling", MetricAuditViolations,
	// Guarantee.Bounds of the mechanisms
	"eps_n", "eps_ln_eta_n", "ell_n", "eps_l", "word_eps", "candidate_eps_l", "token_eps_l", "gamma",
	"gumbel_scale", "delta_min", "delta_max",
	// Diagnose of the mechanisms
	"unchanged_share", "oov_tokens", "mean_cosine", "oov_kept", "oov_dropped", "oov_replaced", "distinct_outputs",
	"syntf_terms", "syntf_output_in_input", "syntf_oov_terms", "scrubbed_names", "scrubbed_numbers",
	"original_mass", "top5_similarity", "top5_similarity_centered", "released_top5_share",
	"release_top5_mass", "release_similarity_centered", "release_top5_similarity_centered", "release_tail_similarity_centered",
	// counts behind unchanged_share (experiments/runner/privacy.go)
	MetricUnchangedWords, MetricShareWords,
}
