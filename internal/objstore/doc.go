// Package objstore keeps the bytes of uploaded files (onboarding documents,
// e-mail banners) outside the database: presigned PUT and GET URLs that a
// client uses directly, bound to one key and one method and expiring on the
// security clock, and the server's own reads, writes and deletes
// (docs/onboarding.md section 6). Two backends implement Store: embedded
// (files under the data directory, served by atcp itself) and s3 (any
// S3-compatible service through minio-go).
package objstore
