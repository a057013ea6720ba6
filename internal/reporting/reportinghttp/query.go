// Package reportinghttp holds what the report endpoints' inputs share:
// limit/offset paging, documented once (docs/reporting.md, conventions).
package reportinghttp

import "atcp/internal/reporting"

// PageQuery is a list report's limit/offset page.
type PageQuery struct {
	Limit  int `query:"limit" minimum:"1" maximum:"1000" default:"100" doc:"Items per page, 1 to 1000."`
	Offset int `query:"offset" minimum:"0" default:"0" doc:"Items to skip."`
}

// Page is the page the query asks for, before reporting.Page.Resolve.
func (q PageQuery) Page() reporting.Page { return reporting.Page{Limit: q.Limit, Offset: q.Offset} }
