package documents_test

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"atcp/internal/onboarding/documents"
)

// zipOf builds a ZIP archive of the named entries, the first padded with
// pad random (incompressible) bytes.
func zipOf(t *testing.T, pad int, names ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i, n := range names {
		f, err := w.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("<x/>"))
		if i == 0 && pad > 0 {
			b := make([]byte, pad)
			rand.Read(b)
			f.Write(b)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestInspector(t *testing.T) {
	xlsx := []string{"[Content_Types].xml", "_rels/.rels", "xl/workbook.xml", "xl/worksheets/sheet1.xml"}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"jpeg", []byte("\xff\xd8\xff\xe1\x00\x18Exif\x00\x00"), documents.JPEG},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), documents.PNG},
		{"heic", []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"), documents.HEIC},
		{"heif mif1", []byte("\x00\x00\x00\x1cftypmif1\x00\x00\x00\x00mif1heic"), documents.HEIC},
		{"mp4 is not heic", []byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2"), ""},
		{"pdf", []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"), documents.PDF},
		{"csv", []byte("point_name,unit\nsoc,percent\n"), documents.CSV},
		{"csv with bom", []byte("\xef\xbb\xbfa;b\r\n1;2\r\n"), documents.CSV},
		{"binary", []byte("\x00\x01\x02\x03garbage"), ""},
		{"empty", nil, ""},
		{"xlsx", zipOf(t, 0, xlsx...), documents.XLSX},
		{"large xlsx", zipOf(t, 3<<20, xlsx...), documents.XLSX},
		{"docx is not xlsx", zipOf(t, 0, "[Content_Types].xml", "word/document.xml"), ""},
		{"zip without content types", zipOf(t, 0, "xl/workbook.xml"), ""},
		{"truncated zip", zipOf(t, 0, xlsx...)[:200], ""},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), documents.CSV},
	} {
		// Any chunking gives the same answer.
		for _, chunk := range []int{1, 7, 4096, 1 << 20} {
			if chunk == 1 && len(c.data) > 100_000 {
				continue // byte by byte through megabytes is slow and proves nothing more
			}
			in := documents.NewInspector()
			for rest := c.data; len(rest) > 0; {
				n := min(chunk, len(rest))
				in.Write(rest[:n])
				rest = rest[n:]
			}
			sum := sha256.Sum256(c.data)
			if got := in.Type(); got != c.want || in.Size() != int64(len(c.data)) || in.SHA256() != hex.EncodeToString(sum[:]) {
				t.Errorf("%s (chunks of %d): type %q size %d, want %q", c.name, chunk, got, in.Size(), c.want)
			}
		}
	}
}

func TestCheckFilename(t *testing.T) {
	for name, ok := range map[string]bool{
		"Zähler 1.jpg": true, "a": true, "": false, "  ": false, "a/b.pdf": false, `a\b.pdf`: false, "..": false, ".": false,
		"a\x00b": false, "a\nb": false, "\xff.pdf": false, string(bytes.Repeat([]byte("ä"), 200)): true,
		string(bytes.Repeat([]byte("ä"), 201)): false,
	} {
		if got := documents.CheckFilename(name) == ""; got != ok {
			t.Errorf("%q: ok %v, want %v", name, got, ok)
		}
	}
}

func TestRules(t *testing.T) {
	if len(documents.Types) != len(documents.Rules) {
		t.Fatalf("%d types, %d rules", len(documents.Types), len(documents.Rules))
	}
	for _, typ := range documents.Types {
		if _, ok := documents.Rules[typ]; !ok {
			t.Errorf("no rule for %s", typ)
		}
	}
	if r := documents.Rules["installation_photo_antenna"]; r.MaxSize != 25_000_000 || len(r.Types) != 3 {
		t.Errorf("photo rule %+v", r)
	}
}
