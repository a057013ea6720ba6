package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"atcp/internal/auth"
	"atcp/internal/contacts"
	"atcp/internal/errs"
	"atcp/internal/store/sqlutil"
)

// Contacts returns the asset contact directory store.
func (db *DB) Contacts() contacts.Store { return contactStore{db} }

// contactStore counts and inserts in one write transaction: the single
// write connection serialises creates, so that the cap per asset holds.
type contactStore struct{ db *DB }

// contactColumns are read as a Contact; a field not given is NULL, read
// as "". They are unqualified: RETURNING cannot name the table's alias.
const contactColumns = `contact_id, asset_id, organization_id, name, coalesce(role, ''), coalesce(company, ''),
	coalesce(email, ''), coalesce(phone, ''), coalesce(chat_webhook_url, ''), is_emergency, notifiable,
	created_at, updated_at`

// contactVisible filters contacts of visible, not deleted assets (all,
// organisation, asset, then the contact id).
const contactVisible = `EXISTS (SELECT 1 FROM assets a WHERE a.asset_id = c.asset_id AND a.deleted_at IS NULL)
	AND (? OR c.organization_id = ?) AND c.asset_id = ?`

type contactRow interface{ Scan(dest ...any) error }

func scanContact(row contactRow) (contacts.Contact, error) {
	var c contacts.Contact
	var created, updated int64
	err := row.Scan(&c.ID, &c.AssetID, &c.OrganizationID, &c.Name, &c.Role, &c.Company, &c.Email, &c.Phone, &c.ChatWebhookURL,
		&c.IsEmergency, &c.Notifiable, &created, &updated)
	c.CreatedAt, c.UpdatedAt = sqlutil.FromMicros(created), sqlutil.FromMicros(updated)
	return c, err
}

func contactNotFound(assetID string, id int64) error {
	return errs.NotFoundf("asset %q has no contact %d", assetID, id)
}

func (s contactStore) List(ctx context.Context, v auth.Visibility, assetID string) (_ []contacts.Contact, err error) {
	defer sqlutil.Wrap(&err, "contacts: list")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT `+contactColumns+` FROM asset_contacts c WHERE `+contactVisible+
		` ORDER BY c.contact_id`, v.All, v.OrganizationID, assetID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []contacts.Contact{}
	for rows.Next() {
		c, err := scanContact(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (s contactStore) Get(ctx context.Context, v auth.Visibility, assetID string, id int64) (_ contacts.Contact, err error) {
	defer sqlutil.Wrap(&err, "contacts: get")
	c, err := scanContact(s.db.read(ctx).QueryRowContext(ctx, `SELECT `+contactColumns+` FROM asset_contacts c WHERE `+contactVisible+
		` AND c.contact_id = ?`, v.All, v.OrganizationID, assetID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return contacts.Contact{}, contactNotFound(assetID, id)
	}
	return c, err
}

func (s contactStore) Create(ctx context.Context, v auth.Visibility, c contacts.Contact, allow func(int) error) (_ contacts.Contact, err error) {
	defer sqlutil.Wrap(&err, "contacts: create")
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		a, err := currentAsset(ctx, tx, v, c.AssetID)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM asset_contacts WHERE asset_id = ?`, a.ID).Scan(&n); err != nil {
			return sqlutil.Wrapped("count contacts", err)
		}
		if err := allow(n); err != nil {
			return err
		}
		c.OrganizationID = a.OrganizationID
		err = tx.QueryRowContext(ctx, `INSERT INTO asset_contacts (organization_id, asset_id, name, role, company, email, phone,
				chat_webhook_url, is_emergency, notifiable, created_at, updated_at)
			VALUES (?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''), ?, ?, ?, ?)
			RETURNING contact_id`,
			c.OrganizationID, c.AssetID, c.Name, c.Role, c.Company, c.Email, c.Phone, c.ChatWebhookURL,
			c.IsEmergency, c.Notifiable, sqlutil.Micros(c.CreatedAt), sqlutil.Micros(c.UpdatedAt)).Scan(&c.ID)
		return sqlutil.Wrapped("insert contact", err)
	})
	if err != nil {
		return contacts.Contact{}, err
	}
	return c, nil
}

func (s contactStore) Replace(ctx context.Context, v auth.Visibility, c contacts.Contact) (_ contacts.Contact, err error) {
	defer sqlutil.Wrap(&err, "contacts: replace")
	out, err := scanContact(s.db.write(ctx).QueryRowContext(ctx, `UPDATE asset_contacts AS c SET name = ?, role = NULLIF(?, ''),
			company = NULLIF(?, ''), email = NULLIF(?, ''), phone = NULLIF(?, ''), chat_webhook_url = NULLIF(?, ''),
			is_emergency = ?, notifiable = ?, updated_at = ?
		WHERE `+contactVisible+` AND c.contact_id = ?
		RETURNING `+contactColumns,
		c.Name, c.Role, c.Company, c.Email, c.Phone, c.ChatWebhookURL, c.IsEmergency, c.Notifiable, sqlutil.Micros(c.UpdatedAt),
		v.All, v.OrganizationID, c.AssetID, c.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return contacts.Contact{}, contactNotFound(c.AssetID, c.ID)
	}
	return out, err
}

func (s contactStore) Delete(ctx context.Context, v auth.Visibility, assetID string, id int64) (err error) {
	defer sqlutil.Wrap(&err, "contacts: delete")
	res, err := s.db.write(ctx).ExecContext(ctx, `DELETE FROM asset_contacts AS c WHERE `+contactVisible+` AND c.contact_id = ?`,
		v.All, v.OrganizationID, assetID, id)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return contactNotFound(assetID, id)
	}
	return nil
}
