package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/errs"
	"atcp/internal/onboarding/documents"
	"atcp/internal/store/sqlutil"
)

// OnboardingDocuments returns the store of onboarding documents.
func (db *DB) OnboardingDocuments() documents.Store { return documentStore{db} }

// documentStore joins the transaction in ctx (onboarding.Service.Mutate
// holds the workflow's row lock).
type documentStore struct{ db *DB }

const documentInsertColumns = `organization_id, onboarding_id, document_id, gate_definition_id, document_type, lineage_id, version,
	filename, content_type, size_bytes, sha256, object_key, status, created_at, upload_expires_at, uploaded_at, uploader_kind,
	uploader_id, uploader_name, replaces_document_id, superseded_by, deleted_at, deleted_by, object_removed_at`

const documentColumns = `organization_id, onboarding_id::text, document_id::text, gate_definition_id, document_type, lineage_id, version,
	filename, content_type, size_bytes, sha256, object_key, status, created_at, upload_expires_at, uploaded_at, uploader_kind,
	uploader_id, uploader_name, replaces_document_id, superseded_by, deleted_at, deleted_by, object_removed_at`

func scanDocument(row pgx.Row) (documents.Document, error) {
	var d documents.Document
	if err := row.Scan(&d.OrganizationID, &d.OnboardingID, &d.ID, &d.GateDefinitionID, &d.DocumentType, &d.LineageID, &d.Version,
		&d.Filename, &d.ContentType, &d.SizeBytes, &d.SHA256, &d.ObjectKey, &d.Status, &d.CreatedAt, &d.UploadExpiresAt, &d.UploadedAt,
		&d.UploaderKind, &d.UploaderID, &d.UploaderName, &d.ReplacesID, &d.SupersededBy, &d.DeletedAt, &d.DeletedBy,
		&d.ObjectRemovedAt); err != nil {
		return documents.Document{}, err
	}
	d.CreatedAt, d.UploadExpiresAt = d.CreatedAt.UTC(), d.UploadExpiresAt.UTC()
	d.UploadedAt, d.DeletedAt, d.ObjectRemovedAt = sqlutil.UTCPtr(d.UploadedAt), sqlutil.UTCPtr(d.DeletedAt), sqlutil.UTCPtr(d.ObjectRemovedAt)
	return d, nil
}

func (s documentStore) Insert(ctx context.Context, d documents.Document) (err error) {
	defer sqlutil.Wrap(&err, "onboarding documents: insert")
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO onboarding_documents (`+documentInsertColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)`,
		d.OrganizationID, d.OnboardingID, d.ID, d.GateDefinitionID, d.DocumentType, d.LineageID, d.Version, d.Filename, d.ContentType,
		d.SizeBytes, d.SHA256, d.ObjectKey, string(d.Status), d.CreatedAt, d.UploadExpiresAt, d.UploadedAt, d.UploaderKind, d.UploaderID,
		d.UploaderName, d.ReplacesID, d.SupersededBy, d.DeletedAt, d.DeletedBy, d.ObjectRemovedAt)
	return err
}

func (s documentStore) Update(ctx context.Context, d documents.Document) (err error) {
	defer sqlutil.Wrap(&err, "onboarding documents: update")
	tag, err := s.db.conn(ctx).Exec(ctx, `UPDATE onboarding_documents SET status = $1, sha256 = $2, uploaded_at = $3,
			superseded_by = $4, deleted_at = $5, deleted_by = $6, object_removed_at = $7
		WHERE organization_id = $8 AND onboarding_id = $9 AND document_id = $10`,
		string(d.Status), d.SHA256, d.UploadedAt, d.SupersededBy, d.DeletedAt, d.DeletedBy, d.ObjectRemovedAt,
		d.OrganizationID, d.OnboardingID, d.ID)
	if err == nil && tag.RowsAffected() == 0 {
		err = documentNotFound(d.ID)
	}
	return err
}

func documentNotFound(id string) error {
	return errs.E(errs.NotFound, documents.CodeDocumentNotFound, "no document %q", id)
}

// Get is given UUIDs: the service checks a caller's id first.
func (s documentStore) Get(ctx context.Context, org, onboardingID, id string) (_ documents.Document, err error) {
	defer sqlutil.Wrap(&err, "onboarding documents: get")
	d, err := scanDocument(s.db.conn(ctx).QueryRow(ctx, `SELECT `+documentColumns+` FROM onboarding_documents
		WHERE organization_id = $1 AND onboarding_id = $2 AND document_id = $3`, org, onboardingID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return documents.Document{}, documentNotFound(id)
	}
	return d, err
}

func (s documentStore) query(ctx context.Context, q string, args ...any) ([]documents.Document, error) {
	rows, err := s.db.conn(ctx).Query(ctx, q, args...)
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
	return s.query(ctx, `SELECT `+documentColumns+` FROM onboarding_documents WHERE organization_id = $1 AND onboarding_id = $2
		ORDER BY created_at, document_id`, org, onboardingID)
}

func (s documentStore) Removable(ctx context.Context, deletedBefore, pendingBefore, expiredAt time.Time, limit int) (_ []documents.Document, err error) {
	defer sqlutil.Wrap(&err, "onboarding documents: removable")
	return s.query(ctx, `SELECT `+documentColumns+` FROM onboarding_documents WHERE object_removed_at IS NULL
		AND ((deleted_at IS NOT NULL AND deleted_at < $1)
			OR (status IN ('pending', 'discarded') AND created_at < $2 AND upload_expires_at <= $3))
		ORDER BY created_at, document_id LIMIT $4`, deletedBefore, pendingBefore, expiredAt, limit)
}
