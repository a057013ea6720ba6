package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"atcp/internal/auth"
	"atcp/internal/contacts"
	"atcp/internal/errs"
	"atcp/internal/store/sqlutil"
)

// Contacts returns the asset contact directory store.
func (db *DB) Contacts() contacts.Store { return contactStore{db} }

// contactStore serialises the creates of one asset's contacts by locking
// the asset row (FOR UPDATE), so that the cap per asset holds.
type contactStore struct{ db *DB }

// contactSelect reads contacts of visible, not deleted assets ($1 all, $2
// organisation, $3 asset); a field not given is NULL, read as "".
const contactSelect = `SELECT c.contact_id, c.asset_id, c.organization_id, c.name, coalesce(c.role, ''), coalesce(c.company, ''),
	coalesce(c.email, ''), coalesce(c.phone, ''), coalesce(c.chat_webhook_url, ''), c.is_emergency, c.notifiable,
	c.created_at, c.updated_at
	FROM asset_contacts c JOIN assets a ON a.asset_id = c.asset_id
	WHERE a.deleted_at IS NULL AND ($1 OR c.organization_id = $2) AND c.asset_id = $3`

func scanContact(row pgx.Row) (contacts.Contact, error) {
	var c contacts.Contact
	err := row.Scan(&c.ID, &c.AssetID, &c.OrganizationID, &c.Name, &c.Role, &c.Company, &c.Email, &c.Phone, &c.ChatWebhookURL,
		&c.IsEmergency, &c.Notifiable, &c.CreatedAt, &c.UpdatedAt)
	c.CreatedAt, c.UpdatedAt = sqlutil.UTC(c.CreatedAt), sqlutil.UTC(c.UpdatedAt)
	return c, err
}

func contactNotFound(assetID string, id int64) error {
	return errs.NotFoundf("asset %q has no contact %d", assetID, id)
}

func (s contactStore) List(ctx context.Context, v auth.Visibility, assetID string) (_ []contacts.Contact, err error) {
	defer sqlutil.Wrap(&err, "contacts: list")
	rows, err := s.db.conn(ctx).Query(ctx, contactSelect+` ORDER BY c.contact_id`, v.All, v.OrganizationID, assetID)
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
	c, err := scanContact(s.db.conn(ctx).QueryRow(ctx, contactSelect+` AND c.contact_id = $4`, v.All, v.OrganizationID, assetID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return contacts.Contact{}, contactNotFound(assetID, id)
	}
	return c, err
}

func (s contactStore) Create(ctx context.Context, v auth.Visibility, c contacts.Contact, allow func(int) error) (_ contacts.Contact, err error) {
	defer sqlutil.Wrap(&err, "contacts: create")
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		a, err := lockAsset(ctx, tx, v, c.AssetID)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM asset_contacts WHERE asset_id = $1`, a.ID).Scan(&n); err != nil {
			return sqlutil.Wrapped("count contacts", err)
		}
		if err := allow(n); err != nil {
			return err
		}
		c.OrganizationID = a.OrganizationID
		err = tx.QueryRow(ctx, `INSERT INTO asset_contacts (organization_id, asset_id, name, role, company, email, phone,
				chat_webhook_url, is_emergency, notifiable, created_at, updated_at)
			VALUES ($1, $2, $3, NULLIF($4, ''), NULLIF($5, ''), NULLIF($6, ''), NULLIF($7, ''), NULLIF($8, ''), $9, $10, $11, $12)
			RETURNING contact_id`,
			c.OrganizationID, c.AssetID, c.Name, c.Role, c.Company, c.Email, c.Phone, c.ChatWebhookURL,
			c.IsEmergency, c.Notifiable, c.CreatedAt, c.UpdatedAt).Scan(&c.ID)
		return sqlutil.Wrapped("insert contact", err)
	})
	if err != nil {
		return contacts.Contact{}, err
	}
	return c, nil
}

func (s contactStore) Replace(ctx context.Context, v auth.Visibility, c contacts.Contact) (_ contacts.Contact, err error) {
	defer sqlutil.Wrap(&err, "contacts: replace")
	out, err := scanContact(s.db.conn(ctx).QueryRow(ctx, `UPDATE asset_contacts c SET name = $5, role = NULLIF($6, ''),
			company = NULLIF($7, ''), email = NULLIF($8, ''), phone = NULLIF($9, ''), chat_webhook_url = NULLIF($10, ''),
			is_emergency = $11, notifiable = $12, updated_at = $13
		FROM assets a
		WHERE a.asset_id = c.asset_id AND a.deleted_at IS NULL AND ($1 OR c.organization_id = $2) AND c.asset_id = $3 AND c.contact_id = $4
		RETURNING c.contact_id, c.asset_id, c.organization_id, c.name, coalesce(c.role, ''), coalesce(c.company, ''),
			coalesce(c.email, ''), coalesce(c.phone, ''), coalesce(c.chat_webhook_url, ''), c.is_emergency, c.notifiable,
			c.created_at, c.updated_at`,
		v.All, v.OrganizationID, c.AssetID, c.ID, c.Name, c.Role, c.Company, c.Email, c.Phone, c.ChatWebhookURL,
		c.IsEmergency, c.Notifiable, c.UpdatedAt))
	if errors.Is(err, pgx.ErrNoRows) {
		return contacts.Contact{}, contactNotFound(c.AssetID, c.ID)
	}
	return out, err
}

func (s contactStore) Delete(ctx context.Context, v auth.Visibility, assetID string, id int64) (err error) {
	defer sqlutil.Wrap(&err, "contacts: delete")
	tag, err := s.db.conn(ctx).Exec(ctx, `DELETE FROM asset_contacts c USING assets a
		WHERE a.asset_id = c.asset_id AND a.deleted_at IS NULL AND ($1 OR c.organization_id = $2) AND c.asset_id = $3 AND c.contact_id = $4`,
		v.All, v.OrganizationID, assetID, id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return contactNotFound(assetID, id)
	}
	return nil
}
