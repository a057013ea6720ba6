package afrrhttp_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"atcp/internal/testkit"
)

// badSubmissions are energy submissions that huma's schema validation
// refused (or, for "bids null", passed on to the engine), with the
// problem the server answered (without its instance). Bid submissions are
// now validated in one decoding pass (httpapi.OneDecodingPass), and these
// answers must not change: the expected bodies were recorded from the
// server before that change.
var badSubmissions = []struct {
	name, contentType, body string
	status                  int
	want                    string
}{
	{"not JSON", "", `{"bids": [`,
		400, `{"code":"malformed_request","detail":"validation failed","errors":[{"location":"body","message":"unexpected end of JSON input","value":"{\"bids\": ["}],"status":400,"title":"Bad Request","type":"about:blank"}`},
	{"trailing garbage", "", `{"bids": []} x`,
		400, `{"code":"malformed_request","detail":"validation failed","errors":[{"location":"body","message":"invalid character 'x' after top-level value","value":"{\"bids\": []} x"}],"status":400,"title":"Bad Request","type":"about:blank"}`},
	{"top-level array", "", `[]`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body","message":"expected object","value":[]}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"top-level null", "", `null`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body","message":"expected object"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"top-level string", "", `"bids"`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body","message":"expected object","value":"bids"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"number out of range", "", `{"bids": [{"product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1e400, "offered_power_mw": 1}]}`,
		400, `{"code":"malformed_request","detail":"validation failed","errors":[{"location":"body","message":"json: cannot unmarshal number 1e400 into Go value of type float64","value":"{\"bids\": [{\"product\": \"pos\", \"start_time\": \"2026-02-01T08:00:00Z\", \"end_time\": \"2026-02-01T08:15:00Z\", \"energy_price_eur_per_mwh\": 1e400, \"offered_power_mw\": 1}]}"}],"status":400,"title":"Bad Request","type":"about:blank"}`},
	{"number out of range in an unknown member", "", `{"bids": [], "x": 1e400}`,
		400, `{"code":"malformed_request","detail":"validation failed","errors":[{"location":"body","message":"json: cannot unmarshal number 1e400 into Go value of type float64","value":"{\"bids\": [], \"x\": 1e400}"}],"status":400,"title":"Bad Request","type":"about:blank"}`},
	{"text/plain", "text/plain", `{"bids": []}`,
		415, `{"code":"unsupported_media_type","detail":"validation failed","errors":[{"location":"body","message":"unknown content type: text/plain","value":"{\"bids\": []}"}],"status":415,"title":"Unsupported Media Type","type":"about:blank"}`},
	{"unknown media type with +json", "application/vnd.atcp+json", `{"bids": []}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids","message":"expected array length \u003e= 1","value":[]}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"bids missing", "", `{}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids","message":"expected required property bids to be present","value":{}}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"bids null", "", `{"bids": null}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids","message":"at least one bid is required"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"bids empty", "", `{"bids": []}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids","message":"expected array length \u003e= 1","value":[]}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"bids an object", "", `{"bids": {}}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids","message":"expected array","value":{}}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"bid a string", "", `{"bids": ["x"]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0]","message":"expected object","value":"x"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"bid empty", "", `{"bids": [{}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].end_time","message":"expected required property end_time to be present","value":{}},{"location":"body.bids[0].energy_price_eur_per_mwh","message":"expected required property energy_price_eur_per_mwh to be present","value":{}},{"location":"body.bids[0].offered_power_mw","message":"expected required property offered_power_mw to be present","value":{}},{"location":"body.bids[0].product","message":"expected required property product to be present","value":{}},{"location":"body.bids[0].start_time","message":"expected required property start_time to be present","value":{}}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"unknown member", "", `{"bids": [` + okBid + `], "modes": "REPLACE"}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.modes","message":"unexpected property","value":{"bids":[{"end_time":"2026-02-01T08:15:00Z","energy_price_eur_per_mwh":1,"offered_power_mw":1,"product":"pos","start_time":"2026-02-01T08:00:00Z"}],"modes":"REPLACE"}}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"unknown member of a bid", "", `{"bids": [{"product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 1, "price": 3}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].price","message":"unexpected property","value":{"end_time":"2026-02-01T08:15:00Z","energy_price_eur_per_mwh":1,"offered_power_mw":1,"price":3,"product":"pos","start_time":"2026-02-01T08:00:00Z"}}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"mode unknown", "", `{"bids": [` + okBid + `], "mode": "UPSERT"}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.mode","message":"expected value to be one of \"CREATE, REPLACE\"","value":"UPSERT"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"mode lower case", "", `{"bids": [` + okBid + `], "mode": "replace"}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.mode","message":"expected value to be one of \"CREATE, REPLACE\"","value":"replace"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"mode a number", "", `{"bids": [` + okBid + `], "mode": 1}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.mode","message":"expected string","value":1}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"product unknown", "", `{"bids": [{"product": "up", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].product","message":"expected value to be one of \"pos, neg\"","value":"up"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"product null", "", `{"bids": [{"product": null, "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].product","message":"expected string"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"start_time not a date-time", "", `{"bids": [{"product": "pos", "start_time": "2026-02-01 08:00", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].start_time","message":"expected string to be RFC 3339 date-time","value":"2026-02-01 08:00"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"end_time a number", "", `{"bids": [{"product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": 1769933700, "energy_price_eur_per_mwh": 1, "offered_power_mw": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].end_time","message":"expected string","value":1769933700}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"price an object", "", `{"bids": [{"product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": {"value": 1}, "offered_power_mw": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].energy_price_eur_per_mwh","message":"expected value to match exactly one schema but matched none","value":{"value":1}}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"price a boolean", "", `{"bids": [{"product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": true, "offered_power_mw": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].energy_price_eur_per_mwh","message":"expected value to match exactly one schema but matched none","value":true}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"price null", "", `{"bids": [{"product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": null, "offered_power_mw": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].energy_price_eur_per_mwh","message":"expected value to match exactly one schema but matched none"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"price string too long", "", `{"bids": [{"product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": "1.000000000000000000000000000000000", "offered_power_mw": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].energy_price_eur_per_mwh","message":"expected value to match exactly one schema but matched none","value":"1.000000000000000000000000000000000"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"power missing", "", `{"bids": [{"product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].offered_power_mw","message":"expected required property offered_power_mw to be present","value":{"end_time":"2026-02-01T08:15:00Z","energy_price_eur_per_mwh":1,"product":"pos","start_time":"2026-02-01T08:00:00Z"}}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"power zero", "", `{"bids": [{"product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 0}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].offered_power_mw","message":"expected number \u003e= 1","value":0}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"power fractional", "", `{"bids": [{"product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 1.5}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].offered_power_mw","message":"expected number to be a multiple of 1","value":1.5}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"power too large", "", `{"bids": [{"product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 100001}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].offered_power_mw","message":"expected number \u003c= 100000","value":100001}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"power a string", "", `{"bids": [{"product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": "5"}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].offered_power_mw","message":"expected number","value":"5"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"idempotency_key empty", "", `{"bids": [{"idempotency_key": "", "product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].idempotency_key","message":"expected length \u003e= 1","value":""}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"idempotency_key too long", "", `{"bids": [{"idempotency_key": "` + strings.Repeat("k", 201) + `", "product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].idempotency_key","message":"expected length \u003c= 200","value":"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk…"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"idempotency_key a number", "", `{"bids": [{"idempotency_key": 7, "product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].idempotency_key","message":"expected string","value":7}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"replace_scope without end_time", "", `{"bids": [` + okBid + `], "mode": "REPLACE", "replace_scope": {"start_time": "2026-02-01T08:00:00Z"}}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.replace_scope.end_time","message":"expected required property end_time to be present","value":{"start_time":"2026-02-01T08:00:00Z"}}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"replace_scope product unknown", "", `{"bids": [` + okBid + `], "mode": "REPLACE", "replace_scope": {"start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T09:00:00Z", "product": "both"}}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.replace_scope.product","message":"expected value to be one of \"pos, neg\"","value":"both"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"replace_scope a string", "", `{"bids": [` + okBid + `], "mode": "REPLACE", "replace_scope": "today"}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.replace_scope","message":"expected object","value":"today"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"several errors in one bid", "", `{"bids": [{"product": "up", "start_time": "x", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": [], "offered_power_mw": -1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].energy_price_eur_per_mwh","message":"expected value to match exactly one schema but matched none","value":[]},{"location":"body.bids[0].offered_power_mw","message":"expected number \u003e= 1","value":-1},{"location":"body.bids[0].product","message":"expected value to be one of \"pos, neg\"","value":"up"},{"location":"body.bids[0].start_time","message":"expected string to be RFC 3339 date-time","value":"x"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"errors in several bids", "", `{"bids": [` + okBid + `, {"product": "pos"}, ` + okBid + `, {"product": "neg", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 0.5}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[1].end_time","message":"expected required property end_time to be present","value":{"product":"pos"}},{"location":"body.bids[1].energy_price_eur_per_mwh","message":"expected required property energy_price_eur_per_mwh to be present","value":{"product":"pos"}},{"location":"body.bids[1].offered_power_mw","message":"expected required property offered_power_mw to be present","value":{"product":"pos"}},{"location":"body.bids[1].start_time","message":"expected required property start_time to be present","value":{"product":"pos"}},{"location":"body.bids[3].offered_power_mw","message":"expected number \u003e= 1","value":0.5},{"location":"body.bids[3].offered_power_mw","message":"expected number to be a multiple of 1","value":0.5}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"more than 50 errors", "", `{"bids": [` + strings.Repeat(`{"product": "x", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 1}, `, 59) + `{}]}`,
		422, `{"code":"validation_failed","detail":"validation failed (the first 50 of 64 errors are listed)","errors":[{"location":"body.bids[0].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[1].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[2].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[3].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[4].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[5].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[6].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[7].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[8].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[9].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[10].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[11].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[12].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[13].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[14].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[15].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[16].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[17].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[18].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[19].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[20].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[21].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[22].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[23].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[24].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[25].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[26].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[27].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[28].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[29].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[30].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[31].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[32].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[33].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[34].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[35].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[36].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[37].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[38].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[39].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[40].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[41].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[42].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[43].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[44].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[45].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[46].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[47].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[48].product","message":"expected value to be one of \"pos, neg\"","value":"x"},{"location":"body.bids[49].product","message":"expected value to be one of \"pos, neg\"","value":"x"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"more than 500 bids", "", `{"bids": [` + strings.Repeat(okBid+`, `, 500) + okBid + `]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids","message":"expected array length \u003c= 500","value":"[{\"end_time\":\"2026-02-01T08:15:00Z\",\"energy_price_eur_per_mwh\":1,\"offered_power_mw\":1,\"product\":\"pos\",\"start_time\":\"2026-02-01T08:00:00Z\"},{\"end_time\":\"2026-02-01T08:15:00Z\",\"energy_price_eur_per_mwh\"…"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"escaped strings", "", `{"bids": [{"product": "p\u006fs", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": "\u0031x", "offered_power_mw": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].energy_price_eur_per_mwh","message":"\"1x\" is not a decimal number","value":"1x"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
	{"member in another case", "", `{"bids": [{"Product": "up", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 1}]}`,
		422, `{"code":"validation_failed","detail":"validation failed","errors":[{"location":"body.bids[0].product","message":"expected value to be one of \"pos, neg\"","value":"up"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`},
}

// okBid is a valid bid of the first open quarter-hour.
const okBid = `{"product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 1}`

func TestEnergySubmitProblemsAsHumaAnswered(t *testing.T) {
	e := energySetup(t, testkit.OpenSQLite(t))
	for _, c := range badSubmissions {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, e.h.URL+enBase+"/bids", strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			ct := c.contentType
			if ct == "" {
				ct = "application/json"
			}
			req.Header.Set("Content-Type", ct)
			req.Header.Set("Authorization", "Bearer "+e.rw)
			r := e.h.Send(req).Expect(t, c.status, "")
			got := r.Map(t)
			delete(got, "instance")
			var want map[string]any
			if err := json.Unmarshal([]byte(c.want), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				t.Errorf("problem\n got %s\nwant %s", g, c.want)
			}
		})
	}
	e.expectStored(t, 0)
}

// TestEnergySubmitLenientBodies: bodies that huma's validation takes by
// its leniencies (a member in another case than its property, escapes)
// and the one pass leaves to it are still taken.
func TestEnergySubmitLenientBodies(t *testing.T) {
	e := energySetup(t, testkit.OpenSQLite(t))
	for _, body := range []string{
		`{"bids": [{"Product": "pos", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": 1, "offered_power_mw": 1}]}`,
		`{"bids": [{"product": "n\u0065g", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T08:15:00Z", "energy_price_eur_per_mwh": "\u0032", "offered_power_mw": 1}]}`,
	} {
		e.h.Do(http.MethodPost, enBase+"/bids", e.rw, body).Expect(t, http.StatusCreated, "")
	}
	e.expectStored(t, 2)
}
