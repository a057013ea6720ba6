package branding

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/objstore"
)

// Organizations finds a registered organisation, errs.NotFound when there
// is none (identity.DirectoryStore).
type Organizations interface {
	Organization(ctx context.Context, id string) (identity.Organization, error)
}

// BannerURLTTL is how long the console's preview URL of the banner works.
const BannerURLTTL = 5 * time.Minute

// Deps are what the service needs. Clock is the platform clock of the
// records; Objects dates its URLs on the security clock itself.
type Deps struct {
	Store         Store
	Organizations Organizations
	Objects       objstore.Store
	Clock         clock.Clock
}

// Service reads and writes brandings for callers.
type Service struct{ d Deps }

// NewService returns the branding service.
func NewService(d Deps) *Service { return &Service{d: d} }

// View is what GET answers: the organisation and its branding (Branding
// zero, Exists false, when never set) with a preview URL of the banner.
type View struct {
	OrganizationID   string
	OrganizationName string
	Branding         Branding
	Exists           bool
	BannerURL        string
}

func organizationNotFound(id string) error {
	return errs.E(errs.NotFound, CodeOrganizationNotFound, "no organisation %q", id)
}

// organization returns the organisation orgID if p may see it; another
// organisation and an unknown one are the same 404.
func (s *Service) organization(ctx context.Context, p *auth.Principal, orgID string) (identity.Organization, error) {
	if !p.CanSeeOrganization(orgID) {
		return identity.Organization{}, organizationNotFound(orgID)
	}
	o, err := s.d.Organizations.Organization(ctx, orgID)
	if errs.Is(err, errs.NotFound) {
		return identity.Organization{}, organizationNotFound(orgID)
	}
	return o, err
}

// Get returns the branding of orgID as p sees it.
func (s *Service) Get(ctx context.Context, p *auth.Principal, orgID string) (View, error) {
	o, err := s.organization(ctx, p, orgID)
	if err != nil {
		return View{}, err
	}
	v := View{OrganizationID: o.ID, OrganizationName: o.Name}
	b, err := s.d.Store.Get(ctx, p.Visibility(), orgID)
	switch {
	case errs.Is(err, errs.NotFound):
		return v, nil
	case err != nil:
		return View{}, err
	}
	v.Branding, v.Exists = b, true
	if v.BannerURL, err = s.bannerURL(ctx, b); err != nil {
		return View{}, err
	}
	return v, nil
}

// bannerURL is a short-lived download URL of b's banner, "" without one.
func (s *Service) bannerURL(ctx context.Context, b Branding) (string, error) {
	if b.BannerKey == "" {
		return "", nil
	}
	ext := map[string]string{TypePNG: ".png", TypeJPEG: ".jpg", TypeSVG: ".svg"}[b.BannerContentType]
	u, err := s.d.Objects.PresignGet(ctx, b.BannerKey, "email-banner"+ext, BannerURLTTL)
	return u.URL, err
}

// Put creates or replaces the settings of orgID's branding, keeping its
// banner; ifMatch, when given, must be the current ETag.
func (s *Service) Put(ctx context.Context, p *auth.Principal, orgID string, in Settings, ifMatch string) (View, error) {
	o, err := s.organization(ctx, p, orgID)
	if err != nil {
		return View{}, err
	}
	in, err = in.Validate()
	if err != nil {
		return View{}, err
	}
	b, err := s.d.Store.Update(ctx, p.Visibility(), orgID, func(cur Branding, exists bool) (Branding, error) {
		if err := CheckIfMatch(ifMatch, cur, exists); err != nil {
			return Branding{}, err
		}
		cur.OrganizationID = orgID
		next := cur.Apply(in)
		next.UpdatedAt = s.d.Clock.Now()
		return next, nil
	})
	if err != nil {
		return View{}, err
	}
	return s.view(ctx, o, b)
}

// PutBanner checks the banner (CheckBanner), stores it in object storage
// under a key of its SHA-256 (so an earlier banner stays as a version and
// a retried upload writes the same object) and points the branding at it.
func (s *Service) PutBanner(ctx context.Context, p *auth.Principal, orgID, contentType string, data []byte, ifMatch string) (View, error) {
	o, err := s.organization(ctx, p, orgID)
	if err != nil {
		return View{}, err
	}
	mt, err := CheckBanner(contentType, data)
	if err != nil {
		return View{}, err
	}
	// A stale If-Match is refused before the upload; the update checks
	// it again under the lock.
	if cur, err := s.d.Store.Get(ctx, p.Visibility(), orgID); err == nil || errs.Is(err, errs.NotFound) {
		if err := CheckIfMatch(ifMatch, cur, err == nil); err != nil {
			return View{}, err
		}
	} else {
		return View{}, err
	}
	sum := sha256.Sum256(data)
	key := BannerKey(orgID, hex.EncodeToString(sum[:]))
	if err := s.d.Objects.Put(ctx, key, bytes.NewReader(data), int64(len(data)), mt); err != nil {
		return View{}, err
	}
	b, err := s.d.Store.Update(ctx, p.Visibility(), orgID, func(cur Branding, exists bool) (Branding, error) {
		if err := CheckIfMatch(ifMatch, cur, exists); err != nil {
			return Branding{}, err
		}
		cur.OrganizationID = orgID
		cur.BannerKey, cur.BannerContentType = key, mt
		cur.UpdatedAt = s.d.Clock.Now()
		return cur, nil
	})
	if err != nil {
		return View{}, err
	}
	return s.view(ctx, o, b)
}

// BannerKey is the object key of an organisation's banner with the
// SHA-256 (hex) of its bytes.
func BannerKey(orgID, sha256Hex string) string {
	return "org/" + orgID + "/branding/banner/" + sha256Hex
}

func (s *Service) view(ctx context.Context, o identity.Organization, b Branding) (View, error) {
	u, err := s.bannerURL(ctx, b)
	if err != nil {
		return View{}, err
	}
	return View{OrganizationID: o.ID, OrganizationName: o.Name, Branding: b, Exists: true, BannerURL: u}, nil
}

// Resolve returns the branding of orgID's onboarding e-mails and task
// pages: its own when it was configured, else the platform's, else a
// zero Branding (the e-mails then use their built-in defaults). It reads
// for the system, not for a caller.
func (s *Service) Resolve(ctx context.Context, orgID string) (Branding, error) {
	order := []string{orgID, auth.PlatformOrganization}
	stored, err := s.d.Store.Stored(ctx, order...)
	if err != nil {
		return Branding{}, err
	}
	for _, id := range order {
		if b, ok := stored[id]; ok && b.Configured() {
			return b, nil
		}
	}
	return Branding{OrganizationID: auth.PlatformOrganization}, nil
}

// Banner reads the banner bytes of b for an e-mail's inline part; nil
// when b has none.
func (s *Service) Banner(ctx context.Context, b Branding) ([]byte, error) {
	if b.BannerKey == "" {
		return nil, nil
	}
	r, err := s.d.Objects.Open(ctx, b.BannerKey, MaxBannerBytes)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(r)
	return buf.Bytes(), err
}
