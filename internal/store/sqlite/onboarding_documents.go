package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"atcp/internal/errs"
	"atcp/internal/onboarding/documents"
	"atcp/internal/store/sqlutil"
)

// OnboardingDocuments returns the store of onboarding documents.
func (db *DB) OnboardingDocuments() documents.Store { return documentStore{db} }

// documentStore joins the transaction in ctx (onboarding.Service.Mutate
// holds the workflow's lock through the single write connection).
type documentStore struct{ db *DB }

const documentColumns = `organization_id, onboarding_id, document_id, gate_definition_id, document_type, lineage_id, version, filename,
	content_type, size_bytes, sha256, object_key, status, created_at, upload_expires_at, uploaded_at, uploader_kind, uploader_id,
	uploader_name, replaces_document_id, superseded_by, deleted_at, deleted_by, object_removed_at`

func scanDocument(row scanner) (documents.Document, error) {
	var d documents.Document
	var created, expires int64
	var uploaded, deleted, removed *int64
	if err := row.Scan(&d.OrganizationID, &d.OnboardingID, &d.ID, &d.GateDefinitionID, &d.DocumentType, &d.LineageID, &d.Version,
		&d.Filename, &d.ContentType, &d.SizeBytes, &d.SHA256, &d.ObjectKey, &d.Status, &created, &expires, &uploaded, &d.UploaderKind,
		&d.UploaderID, &d.UploaderName, &d.ReplacesID, &d.SupersededBy, &deleted, &d.DeletedBy, &removed); err != nil {
		return documents.Document{}, err
	}
	d.CreatedAt, d.UploadExpiresAt = sqlutil.FromMicros(created), sqlutil.FromMicros(expires)
	d.UploadedAt, d.DeletedAt, d.ObjectRemovedAt = sqlutil.FromNullMicros(uploaded), sqlutil.FromNullMicros(deleted), sqlutil.FromNullMicros(removed)
	return d, nil
}

func (s documentStore) Insert(ctx context.Context, d documents.Document) (err error) {
	defer sqlutil.Wrap(&err, "onboarding documents: insert")
	_, err = s.db.write(ctx).ExecContext(ctx, `INSERT INTO onboarding_documents (`+documentColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.OrganizationID, d.OnboardingID, d.ID, d.GateDefinitionID, d.DocumentType, d.LineageID, d.Version, d.Filename, d.ContentType,
		d.SizeBytes, d.SHA256, d.ObjectKey, string(d.Status), sqlutil.Micros(d.CreatedAt), sqlutil.Micros(d.UploadExpiresAt),
		sqlutil.NullMicros(d.UploadedAt), d.UploaderKind, d.UploaderID, d.UploaderName, d.ReplacesID, d.SupersededBy,
		sqlutil.NullMicros(d.DeletedAt), d.DeletedBy, sqlutil.NullMicros(d.ObjectRemovedAt))
	return err
}

func (s documentStore) Update(ctx context.Context, d documents.Document) (err error) {
	defer sqlutil.Wrap(&err, "onboarding documents: update")
	res, err := s.db.write(ctx).ExecContext(ctx, `UPDATE onboarding_documents SET status = ?, sha256 = ?, uploaded_at = ?,
			superseded_by = ?, deleted_at = ?, deleted_by = ?, object_removed_at = ?
		WHERE organization_id = ? AND onboarding_id = ? AND document_id = ?`,
		string(d.Status), d.SHA256, sqlutil.NullMicros(d.UploadedAt), d.SupersededBy, sqlutil.NullMicros(d.DeletedAt), d.DeletedBy,
		sqlutil.NullMicros(d.ObjectRemovedAt), d.OrganizationID, d.OnboardingID, d.ID)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err == nil && n == 0 {
		err = documentNotFound(d.ID)
	}
	return err
}

func documentNotFound(id string) error {
	return errs.E(errs.NotFound, documents.CodeDocumentNotFound, "no document %q", id)
}

func (s documentStore) Get(ctx context.Context, org, onboardingID, id string) (_ documents.Document, err error) {
	defer sqlutil.Wrap(&err, "onboarding documents: get")
	d, err := scanDocument(s.db.read(ctx).QueryRowContext(ctx, `SELECT `+documentColumns+` FROM onboarding_documents
		WHERE organization_id = ? AND onboarding_id = ? AND document_id = ?`, org, onboardingID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return documents.Document{}, documentNotFound(id)
	}
	return d, err
}

func (s documentStore) query(ctx context.Context, q string, args ...any) ([]documents.Document, error) {
	rows, err := s.db.read(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []documents.Document{}
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

func (s documentStore) List(ctx context.Context, org, onboardingID string) (_ []documents.Document, err error) {
	defer sqlutil.Wrap(&err, "onboarding documents: list")
	return s.query(ctx, `SELECT `+documentColumns+` FROM onboarding_documents WHERE organization_id = ? AND onboarding_id = ?
		ORDER BY created_at, document_id`, org, onboardingID)
}

func (s documentStore) Removable(ctx context.Context, deletedBefore, pendingBefore, expiredAt time.Time, limit int) (_ []documents.Document, err error) {
	defer sqlutil.Wrap(&err, "onboarding documents: removable")
	return s.query(ctx, `SELECT `+documentColumns+` FROM onboarding_documents WHERE object_removed_at IS NULL
		AND ((deleted_at IS NOT NULL AND deleted_at < ?)
			OR (status IN ('pending', 'discarded') AND created_at < ? AND upload_expires_at <= ?))
		ORDER BY created_at, document_id LIMIT ?`,
		sqlutil.Micros(deletedBefore), sqlutil.Micros(pendingBefore), sqlutil.Micros(expiredAt), limit)
}
