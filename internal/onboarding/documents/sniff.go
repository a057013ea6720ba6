package documents

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"net/http"
	"strings"
)

// headSize is how much of the start of an object sniffing looks at.
const headSize = 512

// tailSize is how much of the end of an object is kept for a ZIP's central
// directory: an XLSX's lists some dozens of entries in a few KiB.
const tailSize = 64 << 10

// Inspector takes an object's bytes once, as they stream by, and tells its
// size, SHA-256 and sniffed content type; it never holds more than its head
// and tail.
type Inspector struct {
	n    int64
	sum  hash.Hash
	head []byte
	tail []byte // the last tailSize bytes (a sliding window)
}

// NewInspector returns an empty Inspector.
func NewInspector() *Inspector { return &Inspector{sum: sha256.New()} }

func (in *Inspector) Write(p []byte) (int, error) {
	in.n += int64(len(p))
	in.sum.Write(p)
	if room := headSize - len(in.head); room > 0 {
		in.head = append(in.head, p[:min(room, len(p))]...)
	}
	if len(p) >= tailSize {
		in.tail = append(in.tail[:0], p[len(p)-tailSize:]...)
	} else {
		if drop := len(in.tail) + len(p) - tailSize; drop > 0 {
			in.tail = append(in.tail[:0], in.tail[drop:]...)
		}
		in.tail = append(in.tail, p...)
	}
	return len(p), nil
}

// Size is the number of bytes written.
func (in *Inspector) Size() int64 { return in.n }

// SHA256 is the hex SHA-256 of the bytes written.
func (in *Inspector) SHA256() string { return hex.EncodeToString(in.sum.Sum(nil)) }

// Type is the sniffed content type of the bytes written, one of the
// document content types, or "" when it is none of them.
func (in *Inspector) Type() string {
	h := in.head
	switch {
	case bytes.HasPrefix(h, []byte("\xff\xd8\xff")):
		return JPEG
	case bytes.HasPrefix(h, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(h, []byte("%PDF-")):
		return PDF
	case len(h) >= 12 && string(h[4:8]) == "ftyp" && heifBrands[string(h[8:12])]:
		return HEIC
	case bytes.HasPrefix(h, []byte("PK\x03\x04")):
		if zipIsXLSX(in.tail, in.n) {
			return XLSX
		}
		return ""
	}
	// Text without binary bytes is CSV; DetectContentType decides text
	// the way browsers do (no NUL, no control bytes but whitespace).
	if len(h) > 0 && strings.HasPrefix(http.DetectContentType(h), "text/plain") {
		return CSV
	}
	return ""
}

// heifBrands are the major brands of HEIF images an iPhone or Android
// camera writes (ISO/IEC 23008-12).
var heifBrands = map[string]bool{"heic": true, "heix": true, "hevc": true, "hevx": true, "heim": true, "heis": true, "mif1": true, "msf1": true}

// zipIsXLSX reads the central directory of a ZIP archive of size bytes
// from its tail and reports whether the archive holds [Content_Types].xml
// and an xl/ part: an Office Open XML workbook. An archive whose directory
// does not fit in the tail (or a ZIP64 one) is not recognised.
func zipIsXLSX(tail []byte, size int64) bool {
	// The end-of-central-directory record is 22 bytes plus a comment of
	// up to 65535 bytes; search backwards for its signature.
	i := bytes.LastIndex(tail, []byte("PK\x05\x06"))
	if i < 0 || len(tail)-i < 22 {
		return false
	}
	eocd := tail[i:]
	entries := int(binary.LittleEndian.Uint16(eocd[10:]))
	cdSize := int64(binary.LittleEndian.Uint32(eocd[12:]))
	cdOffset := int64(binary.LittleEndian.Uint32(eocd[16:]))
	tailStart := size - int64(len(tail))
	if cdOffset < tailStart || cdOffset+cdSize > size {
		return false
	}
	cd := tail[cdOffset-tailStart:]
	var contentTypes, workbook bool
	for range entries {
		if len(cd) < 46 || !bytes.HasPrefix(cd, []byte("PK\x01\x02")) {
			return false
		}
		nameLen := int(binary.LittleEndian.Uint16(cd[28:]))
		extraLen := int(binary.LittleEndian.Uint16(cd[30:]))
		commentLen := int(binary.LittleEndian.Uint16(cd[32:]))
		if len(cd) < 46+nameLen+extraLen+commentLen {
			return false
		}
		name := string(cd[46 : 46+nameLen])
		contentTypes = contentTypes || name == "[Content_Types].xml"
		workbook = workbook || strings.HasPrefix(name, "xl/")
		cd = cd[46+nameLen+extraLen+commentLen:]
	}
	return contentTypes && workbook
}
