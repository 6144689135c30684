package wire

// Meta is the paging information of a list answer (docs/protocol.md): the "meta" member beside
// "data". The SDK shows it as medspa.Meta; the mock server writes it without importing the
// SDK's engine.
type Meta struct {
	// Total is the number of records matching the filters.
	Total int `json:"total"`
	// Page is the 1-based page number of this answer.
	Page int `json:"page"`
	// PerPage is the page size.
	PerPage int `json:"perPage"`
}
