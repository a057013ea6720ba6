package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"atcp/internal/errs"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/store/sqlutil"
)

// OnboardingContacts returns the store of onboarding contacts.
func (db *DB) OnboardingContacts() contacts.Store { return obContactStore{db} }

type obContactStore struct{ db *DB }

const obContactColumns = `organization_id, onboarding_id, contact_id, name, email, company, phone, roles, language, user_id,
	created_at, updated_at`

func scanObContact(row scanner) (contacts.Contact, error) {
	var c contacts.Contact
	var roles string
	var created, updated int64
	if err := row.Scan(&c.OrganizationID, &c.OnboardingID, &c.ID, &c.Name, &c.Email, &c.Company, &c.Phone, &roles, &c.Language,
		&c.UserID, &created, &updated); err != nil {
		return contacts.Contact{}, err
	}
	var err error
	c.Roles, err = sqlutil.ParseContactRoles(roles)
	c.CreatedAt, c.UpdatedAt = sqlutil.FromMicros(created), sqlutil.FromMicros(updated)
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
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT `+obContactColumns+` FROM onboarding_contacts
		WHERE organization_id = ? AND onboarding_id = ? AND deleted_at IS NULL ORDER BY created_at, contact_id`, org, onboardingID)
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
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT `+obContactColumns+` FROM onboarding_contacts
		WHERE user_id = ? AND user_id <> '' AND deleted_at IS NULL ORDER BY organization_id, onboarding_id, created_at, contact_id`, userID)
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
	c, err := scanObContact(s.db.read(ctx).QueryRowContext(ctx, `SELECT `+obContactColumns+` FROM onboarding_contacts
		WHERE organization_id = ? AND onboarding_id = ? AND contact_id = ? AND deleted_at IS NULL`, org, onboardingID, contactID))
	if errors.Is(err, sql.ErrNoRows) {
		return contacts.Contact{}, obContactNotFound(contactID)
	}
	return c, err
}

func (s obContactStore) InsertContact(ctx context.Context, c contacts.Contact) (err error) {
	defer sqlutil.Wrap(&err, "onboarding contacts: insert")
	_, err = s.db.write(ctx).ExecContext(ctx, `INSERT INTO onboarding_contacts (`+obContactColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.OrganizationID, c.OnboardingID, c.ID, c.Name, c.Email, c.Company, c.Phone, sqlutil.ContactRoles(c), c.Language, c.UserID,
		sqlutil.Micros(c.CreatedAt), sqlutil.Micros(c.UpdatedAt))
	if isUniqueViolation(err) {
		return obContactExists(c.Email)
	}
	return err
}

func (s obContactStore) UpdateContact(ctx context.Context, c contacts.Contact) (err error) {
	defer sqlutil.Wrap(&err, "onboarding contacts: update")
	res, err := s.db.write(ctx).ExecContext(ctx, `UPDATE onboarding_contacts SET name = ?, email = ?, company = ?, phone = ?,
			roles = ?, language = ?, user_id = ?, updated_at = ?
		WHERE organization_id = ? AND onboarding_id = ? AND contact_id = ? AND deleted_at IS NULL`,
		c.Name, c.Email, c.Company, c.Phone, sqlutil.ContactRoles(c), c.Language, c.UserID, sqlutil.Micros(c.UpdatedAt),
		c.OrganizationID, c.OnboardingID, c.ID)
	if isUniqueViolation(err) {
		return obContactExists(c.Email)
	}
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(err, obContactNotFound(c.ID))
	}
	return nil
}

func (s obContactStore) DeleteContact(ctx context.Context, org, onboardingID, contactID string, at time.Time) (err error) {
	defer sqlutil.Wrap(&err, "onboarding contacts: delete")
	res, err := s.db.write(ctx).ExecContext(ctx, `UPDATE onboarding_contacts SET deleted_at = ?
		WHERE organization_id = ? AND onboarding_id = ? AND contact_id = ? AND deleted_at IS NULL`,
		sqlutil.Micros(at), org, onboardingID, contactID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(err, obContactNotFound(contactID))
	}
	return nil
}
