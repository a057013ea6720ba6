package identityhttp

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"sort"
	"strconv"

	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/identity"
)

//go:embed templates/signin*.html templates/layout.html
var signinFS embed.FS

var signinTemplates = template.Must(template.ParseFS(signinFS, "templates/signin*.html", "templates/layout.html"))

type hiddenField struct{ Name, Value string }

type signinFormData struct {
	Title  string
	Hidden []hiddenField
	Email  string
	Error  string
}

type signinErrorData struct {
	Title    string
	Error    string
	Internal bool
}

// setPageHeaders keeps the sign-in pages out of frames, caches and other
// origins: they take passwords and carry the OAuth parameters.
func setPageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
}

func renderSigninPage(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	var buf bytes.Buffer
	if err := signinTemplates.ExecuteTemplate(&buf, name, data); err != nil {
		slog.ErrorContext(r.Context(), "render sign-in page", "request_id", httpapi.RequestID(r.Context()), "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	setPageHeaders(w)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// renderSigninForm shows the sign-in form carrying the request as hidden
// fields.
func renderSigninForm(w http.ResponseWriter, r *http.Request, status int, req identity.AuthorizationRequest, email, problem string) {
	values := req.Values()
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	data := signinFormData{Title: "Sign in", Email: email, Error: problem}
	for _, name := range names {
		data.Hidden = append(data.Hidden, hiddenField{Name: name, Value: values.Get(name)})
	}
	renderSigninPage(w, r, status, "signin.html", data)
}

// renderSigninFailure shows why a request cannot go back to its client.
func renderSigninFailure(w http.ResponseWriter, r *http.Request, description string) {
	renderSigninPage(w, r, http.StatusBadRequest, "signin_error.html",
		signinErrorData{Title: "This sign-in request cannot be used", Error: description})
}

func renderSigninInternal(w http.ResponseWriter, r *http.Request, err error) {
	id := httpapi.RequestID(r.Context())
	slog.ErrorContext(r.Context(), "sign-in failed", "request_id", id, "error", err)
	renderSigninPage(w, r, http.StatusInternalServerError, "signin_error.html",
		signinErrorData{Title: "Sign-in is not available", Error: "An internal error occurred (request id " + id + ").", Internal: true})
}

// waitText says a Retry-After in words.
func waitText(seconds int) string {
	if seconds <= 90 {
		return strconv.Itoa(seconds) + " seconds"
	}
	return strconv.Itoa((seconds+59)/60) + " minutes"
}

// reject answers an invalid authorization request: on a page when the
// client or redirect URI cannot be trusted, else by redirecting the error
// to the client.
func (h *oauthHandlers) reject(w http.ResponseWriter, r *http.Request, aerr *identity.AuthorizeError) {
	if aerr.RedirectTo == "" {
		renderSigninFailure(w, r, aerr.Description)
		return
	}
	redirect(w, aerr.RedirectTo)
}

func redirect(w http.ResponseWriter, location string) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Location", location)
	w.WriteHeader(http.StatusSeeOther)
}

// authorizeForm shows the sign-in page for a valid authorization request.
func (h *oauthHandlers) authorizeForm(w http.ResponseWriter, r *http.Request) {
	params, err := parseForm(r.URL.RawQuery)
	if err != nil {
		renderSigninFailure(w, r, "The query string of the request is "+err.Error()+".")
		return
	}
	req, aerr := h.o.ParseAuthorizationRequest(params)
	if aerr != nil {
		h.reject(w, r, aerr)
		return
	}
	renderSigninForm(w, r, http.StatusOK, req, "", "")
}

// authorizeSubmit checks the credentials posted from the sign-in page and
// sends the browser back to the client with an authorization code.
func (h *oauthHandlers) authorizeSubmit(w http.ResponseWriter, r *http.Request) {
	body, err := readFormBody(w, r)
	if err != nil {
		renderSigninFailure(w, r, "The sign-in form could not be read: "+err.Error()+".")
		return
	}
	params, err := parseForm(body)
	if err != nil {
		renderSigninFailure(w, r, "The sign-in form is "+err.Error()+".")
		return
	}
	req, aerr := h.o.ParseAuthorizationRequest(params)
	if aerr != nil {
		h.reject(w, r, aerr)
		return
	}
	email := params.Get("email")
	location, err := h.o.SignIn(r.Context(), req, email, params.Get("password"))
	var tooMany *identity.TooManyFailures
	switch {
	case errors.Is(err, identity.ErrSignInFailed):
		renderSigninForm(w, r, http.StatusUnauthorized, req, email, "The email address or password is not correct.")
	case errors.As(err, &tooMany):
		w.Header().Set("Retry-After", strconv.Itoa(tooMany.RetryAfterSeconds()))
		renderSigninForm(w, r, http.StatusTooManyRequests, req, email,
			"Too many failed sign-ins for this email address. Try again in "+waitText(tooMany.RetryAfterSeconds())+".")
	case errs.IsUnavailable(err):
		retry, _ := unavailable(r, err)
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		renderSigninForm(w, r, http.StatusServiceUnavailable, req, email,
			"Sign-in is not available at the moment. Nothing was checked; try again in a few seconds.")
	case err != nil:
		renderSigninInternal(w, r, err)
	default:
		redirect(w, location)
	}
}
