package identityhttp

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/identity"
)

//go:embed templates/set_password*.html templates/layout.html
var setPasswordFS embed.FS

var setPasswordTemplates = template.Must(template.ParseFS(setPasswordFS, "templates/set_password*.html", "templates/layout.html"))

// setPasswordFormLimit bounds the form body: three short fields.
const setPasswordFormLimit = 64 << 10

// setPasswordForm is what the form page shows.
type setPasswordForm struct {
	Title         string
	Token         string
	Email         string
	ExpiresAtISO  string
	ExpiresAtText string
	MinLength     int
	MaxLength     int
	Errors        []string
	PasswordError string
	ConfirmError  string
}

// setPasswordMessage is a page that only tells something.
type setPasswordMessage struct {
	Title      string
	Paragraphs []string
}

func registerSetPasswordPages(s *httpapi.Server, d *identity.Directory) {
	documentSetPasswordPages(s)
	s.Mux.HandleFunc("GET "+identity.SetPasswordPath, func(w http.ResponseWriter, r *http.Request) {
		token := r.URL.Query().Get("token")
		info, err := d.PasswordLinkInfo(r.Context(), token)
		if err != nil {
			writeDeadSetPasswordLink(w, r, err)
			return
		}
		writeSetPasswordPage(w, r, http.StatusOK, "set_password_form", newSetPasswordForm(token, info))
	})

	s.Mux.HandleFunc("POST "+identity.SetPasswordPath, func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, setPasswordFormLimit)
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
			writeSetPasswordMessage(w, r, http.StatusUnsupportedMediaType, "The form could not be read",
				"Please open the set-password link again and submit the form from that page.")
			return
		}
		if err := r.ParseForm(); err != nil {
			status := http.StatusBadRequest
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				status = http.StatusRequestEntityTooLarge
			}
			writeSetPasswordMessage(w, r, status, "The form could not be read",
				"Please open the set-password link again and submit the form from that page.")
			return
		}
		// Only the body counts: the token must not travel in the URL of a post.
		token, password, confirm := r.PostForm.Get("token"), r.PostForm.Get("password"), r.PostForm.Get("password_confirm")
		info, err := d.PasswordLinkInfo(r.Context(), token)
		if err != nil {
			writeDeadSetPasswordLink(w, r, err)
			return
		}
		if _, err := d.SetPassword(r.Context(), token, password, confirm); err != nil {
			var de *errs.Error
			if errors.As(err, &de) && de.Kind == errs.Invalid {
				form := newSetPasswordForm(token, info)
				for _, f := range de.Fields {
					form.Errors = append(form.Errors, f.Message)
					switch f.Location {
					case identity.FieldPassword:
						form.PasswordError = f.Message
					case identity.FieldPasswordConfirm:
						form.ConfirmError = f.Message
					}
				}
				writeSetPasswordPage(w, r, http.StatusUnprocessableEntity, "set_password_form", form)
				return
			}
			writeDeadSetPasswordLink(w, r, err)
			return
		}
		writeSetPasswordMessage(w, r, http.StatusOK, "Your password is set",
			"You can now sign in to atcp with your e-mail address "+info.Email+" and the new password.",
			"This link has been used and no longer works.")
	})
}

// SetPasswordFormFields documents the form the set-password page posts.
type SetPasswordFormFields struct {
	Token           string `json:"token" doc:"The token of the set-password link; only in the body, never in the URL of a post."`
	Password        string `json:"password" doc:"The new password, 12 to 256 characters."`
	PasswordConfirm string `json:"password_confirm" doc:"The same password again."`
}

// documentSetPasswordPages adds the plain set-password handlers to the
// OpenAPI document.
func documentSetPasswordPages(s *httpapi.Server) {
	doc := s.API.OpenAPI()
	html := func(description string) *huma.Response {
		return &huma.Response{Description: description, Content: map[string]*huma.MediaType{"text/html": {Schema: &huma.Schema{Type: huma.TypeString}}}}
	}
	rateLimited := &huma.Response{Description: "Rate limited per client address; see Retry-After.", Content: map[string]*huma.MediaType{
		"application/problem+json": {Schema: doc.Components.Schemas.Schema(reflect.TypeOf(httpapi.Problem{}), true, "")}}}
	tags := []string{tagDirectoryUsers}
	noToken := []map[string][]string{} // the link's token is the credential
	doc.AddOperation(&huma.Operation{
		OperationID: "setPasswordPage", Method: http.MethodGet, Path: identity.SetPasswordPath, Tags: tags, Security: noToken,
		Summary:     "Set-password page",
		Description: "The page a set-password link opens: a form for the new password. Pages, not an API: for the person's browser.",
		Parameters: []*huma.Param{{Name: "token", In: "query", Required: true, Description: "The token of the set-password link.",
			Schema: &huma.Schema{Type: huma.TypeString}}},
		Responses: map[string]*huma.Response{
			"200":     html("The form."),
			"404":     html("The link is unknown or was replaced by a newer one."),
			"410":     html("The link was used or has expired (72 hours after issue)."),
			"429":     rateLimited,
			"503":     html("The store cannot be reached now; see Retry-After."),
			"default": html("Any other status: an internal error (500), with a reference to quote."),
		},
	})
	doc.AddOperation(&huma.Operation{
		OperationID: "setPassword", Method: http.MethodPost, Path: identity.SetPasswordPath, Tags: tags, Security: noToken,
		Summary: "Set a password",
		Description: "The set-password form posts here. The password is set, the person becomes active and the link stops working; " +
			"a refused password shows the form again with the reasons (422).",
		RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
			"application/x-www-form-urlencoded": {Schema: doc.Components.Schemas.Schema(reflect.TypeOf(SetPasswordFormFields{}), true, ""),
				Example: httpapi.ParseExample(`{"token":"cZ2bDFXUYstln3bEMqPuF6Do4sEJVWVtTduPFfACr3M",
					"password":"correct horse battery staple","password_confirm":"correct horse battery staple"}`)},
		}},
		Responses: map[string]*huma.Response{
			"200":     html("The password is set."),
			"400":     html("The form cannot be read."),
			"404":     html("The link is unknown or was replaced by a newer one."),
			"410":     html("The link was used or has expired."),
			"413":     html("The form is larger than 64 KiB."),
			"415":     html("The body is not application/x-www-form-urlencoded."),
			"422":     html("The password is refused (too short or long, or the confirmation differs): the form again, with the reasons."),
			"429":     rateLimited,
			"503":     html("The store cannot be reached or the password cannot be hashed now; see Retry-After."),
			"default": html("Any other status: an internal error (500), with a reference to quote."),
		},
	})
}

func newSetPasswordForm(token string, info identity.LinkInfo) setPasswordForm {
	return setPasswordForm{
		Title: "Set your password", Token: token, Email: info.Email,
		ExpiresAtISO:  info.ExpiresAt.UTC().Format(time.RFC3339),
		ExpiresAtText: info.ExpiresAt.UTC().Format("2 January 2006 at 15:04 UTC"),
		MinLength:     identity.PasswordMinLength, MaxLength: identity.PasswordMaxLength,
	}
}

// writeDeadSetPasswordLink explains why a link cannot be used: 404 for one that never
// existed or was replaced, 410 for one used or expired, 503 with Retry-After when
// the store cannot be reached or the password could not be hashed now.
func writeDeadSetPasswordLink(w http.ResponseWriter, r *http.Request, err error) {
	if errs.IsUnavailable(err) {
		retry, _ := unavailable(r, err)
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		writeSetPasswordMessage(w, r, http.StatusServiceUnavailable, "Please try again in a moment",
			"atcp is busy or cannot reach its database right now. Nothing was changed; please try again in a few seconds.")
		return
	}
	var de *errs.Error
	if !errors.As(err, &de) {
		slog.ErrorContext(r.Context(), "set-password page failed", "request_id", httpapi.RequestID(r.Context()), "error", err)
		writeSetPasswordMessage(w, r, http.StatusInternalServerError, "Something went wrong",
			"The password was not changed. Please try again in a moment; if it keeps failing, tell your administrator "+
				"and quote the reference "+httpapi.RequestID(r.Context())+".")
		return
	}
	ask := "Ask your administrator for a new set-password link."
	switch de.Code {
	case identity.CodeLinkUsed:
		writeSetPasswordMessage(w, r, http.StatusGone, "This link has been used",
			"A set-password link works only once, and this one has been used already. If you set your password with it, sign in with that password.",
			ask)
	case identity.CodeLinkExpired:
		writeSetPasswordMessage(w, r, http.StatusGone, "This link has expired",
			"A set-password link works for 72 hours after it was issued, and this one has expired.", ask)
	default:
		writeSetPasswordMessage(w, r, http.StatusNotFound, "This link is not valid",
			"The set-password link is unknown or has been replaced by a newer one. Check that you opened the complete link.", ask)
	}
}

func writeSetPasswordMessage(w http.ResponseWriter, r *http.Request, status int, title string, paragraphs ...string) {
	writeSetPasswordPage(w, r, status, "set_password_message", setPasswordMessage{Title: title, Paragraphs: paragraphs})
}

// writeSetPasswordPage renders a page with the headers that keep it out of frames,
// caches and other origins' reach.
func writeSetPasswordPage(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	var buf bytes.Buffer
	if err := setPasswordTemplates.ExecuteTemplate(&buf, name, data); err != nil {
		slog.ErrorContext(r.Context(), "render set-password page", "request_id", httpapi.RequestID(r.Context()), "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
