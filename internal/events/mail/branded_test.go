package mail_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	netmail "net/mail"
	"strings"
	"testing"

	"atcp/internal/errs"
	"atcp/internal/events"
	"atcp/internal/events/mail"
)

// objects is a fake object store holding one banner.
type objects map[string][]byte

func (o objects) Open(_ context.Context, key string, _ int64) (io.ReadCloser, error) {
	b, ok := o[key]
	if !ok {
		return nil, errs.NotFoundf("no object %s", key)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// part is one leaf of a MIME tree.
type part struct {
	contentType, contentID, disposition string
	body                                []byte
}

func leaves(t *testing.T, header map[string][]string, body io.Reader) []part {
	t.Helper()
	h := netmail.Header(header)
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		var out []part
		r := multipart.NewReader(body, params["boundary"])
		for {
			p, err := r.NextPart()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, leaves(t, p.Header, p)...)
		}
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.EqualFold(h.Get("Content-Transfer-Encoding"), "base64") {
		if b, err = base64.StdEncoding.DecodeString(strings.ReplaceAll(strings.ReplaceAll(string(b), "\r\n", ""), "\n", "")); err != nil {
			t.Fatal(err)
		}
	}
	return []part{{contentType: mt, contentID: h.Get("Content-Id"), disposition: h.Get("Content-Disposition"), body: b}}
}

// TestMailBranded: an event with mail parts is a multipart message with
// the text and HTML parts, the sender's display name over the configured
// address, Reply-To and the banner inline as Content-ID banner, read from
// object storage; an access-link mail's body is cleared once sent.
func TestMailBranded(t *testing.T) {
	srv := startServer(t, serverOptions{})
	banner := []byte("\x89PNG\r\n\x1a\nnot really an image")
	s, err := mail.New(mail.Config{URL: "smtp://" + srv.addr, From: "Leitwarte <leitwarte@atcp.example>",
		Objects: objects{"org/acme/branding/banner/abc": banner}})
	if err != nil {
		t.Fatal(err)
	}
	o := newOutbox(t, s)
	e := mailEvent("erika@epc.example")
	e.Type = events.TypeOnboardingAccessLink
	e.Body = "Hello Erika,\nhttps://console.example/onboarding/magic#aml_secret"
	e.Mail = &events.Mail{HTML: `<p>Hello Erika,</p><img src="cid:banner">`, FromName: "Lausitz Speicher",
		ReplyTo: "help@lausitz.example", BannerKey: "org/acme/branding/banner/abc", BannerContentType: "image/png"}
	plain := mailEvent("max@owner.example")
	if err := o.Outbox.Enqueue(context.Background(), []events.Event{e, plain}); err != nil {
		t.Fatal(err)
	}
	o.run(t)
	got := srv.got()
	if len(got) != 2 {
		t.Fatalf("server accepted %d messages", len(got))
	}
	m, err := netmail.ReadMessage(bytes.NewReader(got[0].data))
	if err != nil {
		t.Fatal(err)
	}
	if from := m.Header.Get("From"); !strings.Contains(from, "Lausitz Speicher") || !strings.Contains(from, "<leitwarte@atcp.example>") ||
		m.Header.Get("Reply-To") != "<help@lausitz.example>" {
		t.Fatalf("headers %v", m.Header)
	}
	byType := map[string]part{}
	for _, p := range leaves(t, m.Header, m.Body) {
		byType[p.contentType] = p
	}
	if !strings.Contains(string(byType["text/plain"].body), "aml_secret") || !strings.Contains(string(byType["text/html"].body), "cid:banner") {
		t.Fatalf("parts %v", byType)
	}
	if img := byType["image/png"]; !bytes.Equal(img.body, banner) || img.contentID != "<banner>" || !strings.HasPrefix(img.disposition, "inline") {
		t.Fatalf("banner part %+v", img)
	}
	if d := o.status(t, e); d.Status != events.StatusDelivered || d.Body != "" || d.Mail != nil || d.Subject != subject {
		t.Fatalf("access-link row after sending %+v", d)
	}
	if d := o.status(t, plain); d.Body != body || d.Mail != nil {
		t.Fatalf("other row after sending %+v", d)
	}
	if p := parse(t, got[1].data); p.body != body || !strings.Contains(p.header.Get("From"), "Leitwarte") {
		t.Fatalf("plain message %+v", p)
	}
}

// TestMailPartsValidated: mail parts belong to e-mails and keep their
// headers on one line.
func TestMailPartsValidated(t *testing.T) {
	e := mailEvent("erika@epc.example")
	e.Mail = &events.Mail{FromName: "a\r\nBcc: x@example.com", ReplyTo: "not an address", BannerKey: "k"}
	err := e.Validate("")
	var de *errs.Error
	if !errors.As(err, &de) || de.Kind != errs.Invalid || len(de.Fields) != 3 {
		t.Fatalf("validation %v", err)
	}
	e.Mail = &events.Mail{HTML: "<p>x</p>"}
	e.Channel, e.Recipient = events.ChannelChat, "https://chat.example/hook"
	if err := e.Validate(""); !errs.Is(err, errs.Invalid) {
		t.Fatalf("chat with mail parts: %v", err)
	}
}
