package usagegen

// Row is one row of the usage plugin's get-usage answer (a day, a session,
// or one model's line in a row's models), the fields the tests and the
// ccusage comparison check against the expected totals.
type Row struct {
	Key        string  `json:"key"`
	Input      int64   `json:"input_tokens"`
	Output     int64   `json:"output_tokens"`
	CacheWrite int64   `json:"cache_write_tokens"`
	CacheRead  int64   `json:"cache_read_tokens"`
	Cost       float64 `json:"cost_usd"`
}
