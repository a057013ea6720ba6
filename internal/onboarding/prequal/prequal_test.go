package prequal

import (
	"context"
	"testing"

	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
)

type oneCert string

func (c oneCert) Exists(_ context.Context, _, _, id string) (bool, error) {
	return id == string(c), nil
}

func TestCheckResult(t *testing.T) {
	const cert = "0193a5c2-aaaa-7000-8000-000000000001"
	mw := func(v float64) *float64 { return &v }
	early, _ := calendar.ParseDay("2026-03-31")
	p := Prequalification{RequestedMW: 8, SubmittedOn: calendar.Day{Year: 2026, Month: 4, Day: 1}}
	for _, c := range []struct {
		name  string
		certs Certificates
		r     ResultRequest
		ok    bool
	}{
		{"granted as requested", nil, ResultRequest{Status: "granted", PrequalifiedMW: mw(8)}, true},
		{"granted without a figure", nil, ResultRequest{Status: "granted"}, false},
		{"granted another figure", nil, ResultRequest{Status: "granted", PrequalifiedMW: mw(7.9)}, false},
		{"partially granted below", nil, ResultRequest{Status: "partially_granted", PrequalifiedMW: mw(7.9)}, true},
		{"partially granted as requested", nil, ResultRequest{Status: "partially_granted", PrequalifiedMW: mw(8)}, false},
		{"partially granted 0", nil, ResultRequest{Status: "partially_granted", PrequalifiedMW: mw(0)}, false},
		{"rejected", nil, ResultRequest{Status: "rejected"}, true},
		{"rejected with 0", nil, ResultRequest{Status: "rejected", PrequalifiedMW: mw(0)}, true},
		{"rejected with a figure", nil, ResultRequest{Status: "rejected", PrequalifiedMW: mw(1)}, false},
		{"withdrawn is no result", nil, ResultRequest{Status: "withdrawn"}, false},
		{"decided before submitted", nil, ResultRequest{Status: "rejected", DecidedOn: &early}, false},
		{"a certificate without documents", nil, ResultRequest{Status: "rejected", CertificateDocumentID: cert}, false},
		{"a known certificate", oneCert(cert), ResultRequest{Status: "rejected", CertificateDocumentID: cert}, true},
		{"an unknown certificate", oneCert(cert), ResultRequest{Status: "rejected", CertificateDocumentID: "0193a5c2-aaaa-7000-8000-000000000002"}, false},
		{"a malformed certificate", oneCert("x"), ResultRequest{Status: "rejected", CertificateDocumentID: "x"}, false},
	} {
		s := &Service{certs: c.certs}
		err := s.checkResult(context.Background(), onboarding.Onboarding{}, p, c.r)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
