package report

import "strings"

// CSVText neutralises a text cell of a CSV file that comes from user data (a document ID, an
// author or topic name) against formula injection: a cell beginning with =, +, -, @, a tab or
// a carriage return is read as a formula by spreadsheets, so it gets a leading apostrophe,
// which they show as text. Numeric columns are never passed here (a negative number stays a
// number).
func CSVText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
