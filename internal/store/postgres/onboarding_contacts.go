package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/errs"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/store/sqlutil"
)

// OnboardingContacts returns the store of onboarding contacts.
func (db *DB) OnboardingContacts() contacts.Store { return obContactStore{db} }

type obContactStore struct{ db *DB }

const obContactColumns = `organization_id, onboarding_id::text, contact_id::text, name, email, company, phone, roles, language,
	user_id, created_at, updated_at`

func scanObContact(row pgx.Row) (contacts.Contact, error) {
	var c contacts.Contact
	var roles string
	if err := row.Scan(&c.OrganizationID, &c.OnboardingID, &c.ID, &c.Name, &c.Email, &c.Company, &c.Phone, &roles, &c.Language,
		&c.UserID, &c.CreatedAt, &c.UpdatedAt); err != nil {
		return contacts.Contact{}, err
	}
	var err error
	c.Roles, err = sqlutil.ParseContactRoles(roles)
	c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	return c, err
}

func obContactNotFound(id string) error {
	return errs.E(errs.NotFound, contacts.CodeContactNotFound, "the onboarding has no contact %q", id)
}

func obContactExists(email string) error {
	return errs.Conflictf(contacts.CodeContactExists, "the onboarding has a contact with the address %s already", email)
}

func (s obContactStore) Contacts(ctx context.Context, org, onboardingID string) (_ []contacts.Contact, err error) {
	defer sqlutil.Wrap(&err, "onboarding contacts: list")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT `+obContactColumns+` FROM onboarding_contacts
		WHERE organization_id = $1 AND onboarding_id = $2::uuid AND deleted_at IS NULL ORDER BY created_at, contact_id`, org, onboardingID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []contacts.Contact{}
	for rows.Next() {
		c, err := scanObContact(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (s obContactStore) ContactsOfUser(ctx context.Context, userID string) (_ []contacts.Contact, err error) {
	defer sqlutil.Wrap(&err, "onboarding contacts: of user")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT `+obContactColumns+` FROM onboarding_contacts
		WHERE user_id = $1 AND user_id <> '' AND deleted_at IS NULL ORDER BY organization_id, onboarding_id, created_at, contact_id`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []contacts.Contact{}
	for rows.Next() {
		c, err := scanObContact(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (s obContactStore) Contact(ctx context.Context, org, onboardingID, contactID string) (_ contacts.Contact, err error) {
	defer sqlutil.Wrap(&err, "onboarding contacts: get")
	c, err := scanObContact(s.db.conn(ctx).QueryRow(ctx, `SELECT `+obContactColumns+` FROM onboarding_contacts
		WHERE organization_id = $1 AND onboarding_id = $2::uuid AND contact_id = $3::uuid AND deleted_at IS NULL`, org, onboardingID, contactID))
	if errors.Is(err, pgx.ErrNoRows) {
		return contacts.Contact{}, obContactNotFound(contactID)
	}
	return c, err
}

func (s obContactStore) InsertContact(ctx context.Context, c contacts.Contact) (err error) {
	defer sqlutil.Wrap(&err, "onboarding contacts: insert")
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO onboarding_contacts (organization_id, onboarding_id, contact_id, name, email,
			company, phone, roles, language, user_id, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		c.OrganizationID, c.OnboardingID, c.ID, c.Name, c.Email, c.Company, c.Phone, sqlutil.ContactRoles(c), c.Language, c.UserID,
		c.CreatedAt, c.UpdatedAt)
	if isUniqueViolation(err) {
		return obContactExists(c.Email)
	}
	return err
}

func (s obContactStore) UpdateContact(ctx context.Context, c contacts.Contact) (err error) {
	defer sqlutil.Wrap(&err, "onboarding contacts: update")
	tag, err := s.db.conn(ctx).Exec(ctx, `UPDATE onboarding_contacts SET name = $1, email = $2, company = $3, phone = $4,
			roles = $5, language = $6, user_id = $7, updated_at = $8
		WHERE organization_id = $9 AND onboarding_id = $10::uuid AND contact_id = $11::uuid AND deleted_at IS NULL`,
		c.Name, c.Email, c.Company, c.Phone, sqlutil.ContactRoles(c), c.Language, c.UserID, c.UpdatedAt,
		c.OrganizationID, c.OnboardingID, c.ID)
	if isUniqueViolation(err) {
		return obContactExists(c.Email)
	}
	if err == nil && tag.RowsAffected() == 0 {
		err = obContactNotFound(c.ID)
	}
	return err
}

func (s obContactStore) DeleteContact(ctx context.Context, org, onboardingID, contactID string, at time.Time) (err error) {
	defer sqlutil.Wrap(&err, "onboarding contacts: delete")
	tag, err := s.db.conn(ctx).Exec(ctx, `UPDATE onboarding_contacts SET deleted_at = $1
		WHERE organization_id = $2 AND onboarding_id = $3::uuid AND contact_id = $4::uuid AND deleted_at IS NULL`,
		at, org, onboardingID, contactID)
	if err == nil && tag.RowsAffected() == 0 {
		err = obContactNotFound(contactID)
	}
	return err
}
