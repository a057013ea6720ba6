package branding

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image"
	_ "image/jpeg" // DecodeConfig of JPEG banners
	_ "image/png"  // DecodeConfig of PNG banners
	"io"
	"mime"
	"net/http"
	"strings"

	"atcp/internal/errs"
)

// Banner limits (document 1: PNG, SVG or JPEG, at most 2 MB).
const (
	MaxBannerBytes     = 2 << 20 // 2,097,152
	MaxBannerDimension = 4000    // pixels, each side of a PNG or JPEG
)

// The banner media types.
const (
	TypePNG  = "image/png"
	TypeJPEG = "image/jpeg"
	TypeSVG  = "image/svg+xml"
)

// CheckBanner returns the media type of a banner whose bytes are data and
// whose Content-Type is declared: the type is sniffed from the bytes and
// must be the declared one (image_type_mismatch); what is not a readable
// PNG, JPEG or SVG image is unsupported_image; an SVG with active or
// external content is refused (svg_active_content), never rewritten, so
// that no sanitiser bug can let a script through.
func CheckBanner(declared string, data []byte) (string, error) {
	mt, _, err := mime.ParseMediaType(declared)
	if err != nil || (mt != TypePNG && mt != TypeJPEG && mt != TypeSVG) {
		return "", errs.E(errs.Malformed, CodeUnsupportedImage,
			"the Content-Type must be image/png, image/jpeg or image/svg+xml, not %q", declared)
	}
	sniffed := sniff(data)
	if sniffed == "" {
		return "", errs.E(errs.Malformed, CodeUnsupportedImage, "the body is not a PNG, JPEG or SVG image")
	}
	if sniffed != mt {
		return "", errs.E(errs.Malformed, CodeImageTypeMismatch, "the Content-Type is %s but the body is %s", mt, sniffed)
	}
	if mt == TypeSVG {
		return mt, checkSVG(data)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return "", errs.E(errs.Malformed, CodeUnsupportedImage, "the %s image cannot be read", mt)
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxBannerDimension || cfg.Height > MaxBannerDimension {
		return "", errs.E(errs.Malformed, CodeUnsupportedImage, "the image is %d×%d pixels; at most %d×%d",
			cfg.Width, cfg.Height, MaxBannerDimension, MaxBannerDimension)
	}
	return mt, nil
}

// sniff returns TypePNG, TypeJPEG or TypeSVG by the bytes, "" for anything
// else. SVG is told by its root element, not by a signature.
func sniff(data []byte) string {
	switch http.DetectContentType(data) {
	case TypePNG:
		return TypePNG
	case TypeJPEG:
		return TypeJPEG
	}
	if name, ok := rootElement(data); ok && name == "svg" {
		return TypeSVG
	}
	return ""
}

// rootElement returns the local name of the first element of data read as
// XML; ok is false when data does not start as XML (after an optional
// byte-order mark, declaration, comments and white space).
func rootElement(data []byte) (string, bool) {
	d := xml.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	for {
		tok, err := d.Token()
		if err != nil {
			return "", false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t.Name.Local, true
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return "", false
			}
		}
	}
}

func activeContent(format string, args ...any) error {
	return errs.E(errs.Malformed, CodeSVGActiveContent, "the SVG is refused: "+format, args...)
}

// checkSVG refuses, rather than cleans, every construct that can run code
// or load something when the image is shown: script and foreignObject
// elements, on* event attributes, javascript: and non-image data: URLs,
// references to anything outside the document (href, xlink:href, CSS
// url() and @import), and DOCTYPE or entity declarations.
func checkSVG(data []byte) error {
	d := xml.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	d.Strict = true
	inStyle := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return errs.E(errs.Malformed, CodeUnsupportedImage, "the SVG is not well-formed XML")
		}
		switch t := tok.(type) {
		case xml.Directive:
			return activeContent("it holds a DOCTYPE or entity declaration")
		case xml.ProcInst:
			if t.Target != "xml" {
				return activeContent("it holds the processing instruction %q", t.Target)
			}
		case xml.StartElement:
			switch strings.ToLower(t.Name.Local) {
			case "script", "foreignobject", "iframe", "embed", "object":
				return activeContent("it holds a %s element", t.Name.Local)
			case "style":
				inStyle++
			}
			for _, a := range t.Attr {
				if err := checkAttr(a); err != nil {
					return err
				}
			}
		case xml.EndElement:
			if strings.EqualFold(t.Name.Local, "style") {
				inStyle--
			}
		case xml.CharData:
			if inStyle > 0 {
				if err := checkCSS(string(t)); err != nil {
					return err
				}
			}
		}
	}
}

func checkAttr(a xml.Attr) error {
	name := strings.ToLower(a.Name.Local)
	if strings.HasPrefix(name, "on") {
		return activeContent("the attribute %s is an event handler", a.Name.Local)
	}
	value := strings.ToLower(strings.Join(strings.Fields(a.Value), ""))
	if strings.Contains(value, "javascript:") || strings.Contains(value, "vbscript:") {
		return activeContent("the attribute %s holds a script URL", a.Name.Local)
	}
	switch name {
	case "href", "src":
		if !localRef(value) {
			return activeContent("the attribute %s refers outside the image", a.Name.Local)
		}
	case "style":
		return checkCSS(a.Value)
	}
	if strings.Contains(value, "url(") {
		return checkCSS(a.Value)
	}
	return nil
}

// localRef reports whether an href stays inside the document (#id) or is
// an embedded PNG or JPEG.
func localRef(v string) bool {
	return strings.HasPrefix(v, "#") || strings.HasPrefix(v, "data:image/png") || strings.HasPrefix(v, "data:image/jpeg")
}

// checkCSS refuses CSS that imports or loads anything but a fragment of
// the document itself.
func checkCSS(css string) error {
	v := strings.ToLower(strings.Join(strings.Fields(css), ""))
	if strings.Contains(v, "@import") || strings.Contains(v, "expression(") {
		return activeContent("its CSS imports or evaluates")
	}
	for rest := v; ; {
		i := strings.Index(rest, "url(")
		if i < 0 {
			return nil
		}
		rest = rest[i+len("url("):]
		if !localRef(strings.TrimLeft(rest, `'"`)) {
			return activeContent("its CSS loads a URL")
		}
	}
}
