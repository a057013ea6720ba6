package httpapi

import (
	"encoding/csv"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// CSVContentType is the media type of the CSV form of list reports.
const CSVContentType = "text/csv"

// Table is a response body that also has a CSV form: a client sending
// Accept: text/csv gets the header row and then one record per row
// (RFC 4180: comma, CRLF, quoted where needed). Values are the JSON
// values' text: UTC RFC 3339 instants, decimal points, empty for null.
// Operations whose body is a Table list text/csv as a second response
// media type; every other operation answers JSON to such a client.
type Table interface {
	CSVHeader() []string
	CSVRows() [][]string
}

var csvFormat = huma.Format{
	Marshal: func(w io.Writer, v any) error {
		t, ok := v.(Table)
		if !ok {
			// Problems negotiate application/problem+json (Problem.ContentType),
			// so only a body of an operation registered without a CSV form
			// could reach here, and those are registered on jsonOnly.
			return jsonFormat.Marshal(w, v)
		}
		cw := csv.NewWriter(w)
		cw.UseCRLF = true
		if err := cw.Write(t.CSVHeader()); err != nil {
			return err
		}
		if err := cw.WriteAll(t.CSVRows()); err != nil {
			return err
		}
		return cw.Error()
	},
	Unmarshal: func([]byte, any) error { return huma.ErrUnknownContentType },
}

// jsonOnly is the API that operations without a CSV form are registered
// on: a client preferring text/csv gets JSON rather than a CSV that
// cannot be written.
type jsonOnly struct{ huma.API }

func (a jsonOnly) Negotiate(accept string) (string, error) {
	ct, err := a.API.Negotiate(accept)
	if ct == CSVContentType {
		ct = "application/json"
	}
	return ct, err
}

// isTable reports whether the output type O has a Body that is a Table.
func isTable[O any]() bool {
	f, ok := reflect.TypeFor[O]().FieldByName("Body")
	if !ok {
		return false
	}
	table := reflect.TypeFor[Table]()
	return f.Type.Implements(table) || reflect.PointerTo(f.Type).Implements(table)
}

// documentCSV adds text/csv to the operation's 200 response in the
// OpenAPI document.
func (s *Server) documentCSV(op huma.Operation) {
	item := s.API.OpenAPI().Paths[op.Path]
	if item == nil {
		return
	}
	var registered *huma.Operation
	switch op.Method {
	case http.MethodGet:
		registered = item.Get
	case http.MethodPost:
		registered = item.Post
	}
	if registered == nil || registered.Responses["200"] == nil {
		return
	}
	ok := registered.Responses["200"]
	if ok.Content == nil {
		ok.Content = map[string]*huma.MediaType{}
	}
	ok.Content[CSVContentType] = &huma.MediaType{Schema: &huma.Schema{
		Type:        "string",
		Description: "The same rows as CSV (RFC 4180, header row first), for a client sending Accept: text/csv.",
	}}
}

// The cells of a Table's rows, written as the JSON values are: instants
// in UTC RFC 3339 (fractional seconds only where the instant has them),
// numbers in their shortest decimal form, null as an empty cell.

func CSVInstant(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func CSVOptionalInstant(t *time.Time) string {
	if t == nil {
		return ""
	}
	return CSVInstant(*t)
}

func CSVNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func CSVOptionalNumber(v *float64) string {
	if v == nil {
		return ""
	}
	return CSVNumber(*v)
}

func CSVOptional(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
