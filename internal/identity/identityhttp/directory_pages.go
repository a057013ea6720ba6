package identityhttp

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"time"

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
