package identityhttp

import (
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"atcp/internal/identity"
)

// maxFormBytes bounds the body of the form-encoded OAuth endpoints.
const maxFormBytes = 64 << 10

// readFormBody returns the body of a form-encoded POST, refusing other
// content types and bodies over maxFormBytes with an error that says so.
func readFormBody(w http.ResponseWriter, r *http.Request) (string, error) {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "application/x-www-form-urlencoded" {
		return "", errors.New("the body must be application/x-www-form-urlencoded")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxFormBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return "", errors.New("the body is larger than 64 KiB")
		}
		return "", errors.New("the body could not be read")
	}
	return string(body), nil
}

// parseForm decodes a form body or query string whose names and values
// are UTF-8 text without NUL (RFC 6749 appendix B): PostgreSQL cannot
// hold or even compare anything else, so it is refused before a store is
// asked. Its errors complete "the body is ...".
func parseForm(encoded string) (url.Values, error) {
	values, err := url.ParseQuery(encoded)
	if err != nil {
		return nil, errors.New("not valid form encoding")
	}
	for name, vs := range values {
		for _, v := range append(vs, name) {
			if !storableText(v) {
				return nil, errors.New("not UTF-8 text without NUL characters")
			}
		}
	}
	return values, nil
}

func storableText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// tokenRequest is a request to the token endpoint with its client
// authentication sorted out.
type tokenRequest struct {
	params       map[string]string
	clientID     string
	clientSecret string
	// viaHeader: the client tried to authenticate with the Authorization
	// header, so a failure answers 401 with a Basic challenge.
	viaHeader bool
}

// parseTokenRequest reads the form body and the Authorization header of a
// token request (RFC 6749 sections 2.3.1 and 3.2): parameters without a
// value count as omitted, none may be repeated, and the client
// authenticates either with HTTP Basic (client_secret_basic, id and secret
// form-url-encoded) or with client_id and client_secret in the body
// (client_secret_post), never both.
func parseTokenRequest(authorization, body string) (tokenRequest, *identity.OAuthError) {
	req := tokenRequest{params: map[string]string{}, viaHeader: authorization != ""}
	values, err := parseForm(body)
	if err != nil {
		return req, &identity.OAuthError{Code: identity.OAuthInvalidRequest, Description: "the body is " + err.Error()}
	}
	for name, vs := range values {
		given := 0
		for _, v := range vs {
			if v != "" {
				given++
				req.params[name] = v
			}
		}
		if given > 1 {
			return req, &identity.OAuthError{Code: identity.OAuthInvalidRequest, Description: "parameter " + name + " is given more than once"}
		}
	}
	if req.viaHeader {
		id, secret, ok := parseBasicCredentials(authorization)
		if !ok {
			return req, &identity.OAuthError{Code: identity.OAuthInvalidClient,
				Description: "the Authorization header must be HTTP Basic with the form-url-encoded client id and secret"}
		}
		if _, both := req.params["client_secret"]; both {
			return req, &identity.OAuthError{Code: identity.OAuthInvalidRequest,
				Description: "send the client credentials either in the Authorization header or in the body, not both"}
		}
		if formID, named := req.params["client_id"]; named && formID != id {
			return req, &identity.OAuthError{Code: identity.OAuthInvalidRequest,
				Description: "client_id in the body differs from the client of the Authorization header"}
		}
		req.clientID, req.clientSecret = id, secret
		return req, nil
	}
	req.clientID, req.clientSecret = req.params["client_id"], req.params["client_secret"]
	return req, nil
}

// parseBasicCredentials decodes an HTTP Basic Authorization header whose
// user id and password are form-url-encoded (RFC 6749 section 2.3.1) UTF-8
// text without NUL.
func parseBasicCredentials(header string) (id, secret string, ok bool) {
	scheme, encoded, found := strings.Cut(header, " ")
	if !found || !strings.EqualFold(scheme, "Basic") {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(encoded))
	if err != nil {
		return "", "", false
	}
	rawID, rawSecret, found := strings.Cut(string(raw), ":")
	if !found {
		return "", "", false
	}
	if id, err = url.QueryUnescape(rawID); err != nil || id == "" {
		return "", "", false
	}
	if secret, err = url.QueryUnescape(rawSecret); err != nil {
		return "", "", false
	}
	if !storableText(id) || !storableText(secret) {
		return "", "", false
	}
	return id, secret, true
}
