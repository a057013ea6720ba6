package documentshttp_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/documents"
	"atcp/internal/onboarding/documents/documentshttp"
	"atcp/internal/onboarding/onboardingtest"
	"atcp/internal/onboarding/tasks"
	"atcp/internal/onboarding/tasks/taskshttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

var (
	jpegBytes = append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"), bytes.Repeat([]byte{0x42}, 300)...)
	pngBytes  = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0x17}, 200)...)
	pdfBytes  = []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
)

type env struct {
	*onboardingtest.Kit
	ob  onboarding.Onboarding // bess-1's
	id  string                // its id
	id2 string                // bess-2's onboarding
	// epc, epc2 and owner are magic-link sessions on id, other on id2.
	epc, epc2, owner, other string
}

func setup(t *testing.T, b store.Backend) env {
	t.Helper()
	k := onboardingtest.New(t, b, onboardingtest.Config{Fields: true})
	docs := documents.NewService(b.OnboardingDocuments(), k.Core, k.Objects(), k.Clock, k.Security)
	tsk := tasks.NewService(tasks.Deps{Onboarding: k.Core, Assets: k.Assets, Fields: k.Fields, Documents: docs.TaskLister()})
	documentshttp.Register(k.Server, docs, k.Core, tsk)
	taskshttp.Register(k.Server, k.Core, tsk)
	ob, ob2 := k.Start("bess-1", nil), k.Start("bess-2", nil)
	return env{Kit: k, ob: ob, id: ob.ID, id2: ob2.ID, epc: k.Session(ob, "c-epc", onboarding.RoleEPC), epc2: k.Session(ob, "c-epc2", onboarding.RoleEPC),
		owner: k.Session(ob, "c-owner", onboarding.RoleAssetOwner), other: k.Session(ob2, "c-other", onboarding.RoleEPC)}
}

// do sends a request with an optional preview role header.
func (e env) do(method, path, token, preview string, body any) *testkit.Response {
	e.T.Helper()
	if preview == "" {
		return e.Do(method, path, token, body)
	}
	return e.Do(method, path, token, body, "X-Onboarding-Preview-Role", preview)
}

type upload struct {
	Document      map[string]any    `json:"document"`
	UploadURL     string            `json:"upload_url"`
	UploadMethod  string            `json:"upload_method"`
	UploadHeaders map[string]string `json:"upload_headers"`
	ExpiresAt     time.Time         `json:"expires_at"`
}

func (u upload) id() string { return u.Document["id"].(string) }

// put uploads data to the presigned address as a client would.
func (e env) put(t *testing.T, u upload, data []byte) {
	t.Helper()
	req, err := http.NewRequest(u.UploadMethod, u.UploadURL, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range u.UploadHeaders {
		req.Header.Set(k, v)
	}
	if r := e.Send(req); r.Status != http.StatusOK {
		t.Fatalf("upload: %s", r)
	}
}

func (e env) presign(t *testing.T, base, token string, body map[string]any) upload {
	t.Helper()
	var u upload
	e.Do("POST", base+"/documents/presigned-upload", token, body).Expect(t, 201, "").JSON(t, &u)
	return u
}

func photo(typ string, data []byte, ct string) map[string]any {
	return map[string]any{"document_type": typ, "filename": "Zähler 1.jpg", "content_type": ct, "size_bytes": len(data)}
}

func (e env) gateStatus(t *testing.T, definitionID string) onboarding.GateStatus {
	t.Helper()
	ob, err := e.Core.Get(context.Background(), onboardingtest.PlatformActor, e.id)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range ob.Gates {
		if g.DefinitionID == definitionID {
			return g.Status
		}
	}
	t.Fatalf("no gate %s", definitionID)
	return ""
}

// taskDetail is what the tests read of the task detail, the answer of the
// task side's finalize and delete.
type taskDetail struct {
	OnboardingID string `json:"onboarding_id"`
	Role         string `json:"role"`
	Gates        []struct {
		DefinitionID string `json:"definition_id"`
		Status       string `json:"status"`
	} `json:"gates"`
	Documents []map[string]any `json:"documents"`
}

func (d taskDetail) gateStatus(definitionID string) string {
	for _, g := range d.Gates {
		if g.DefinitionID == definitionID {
			return g.Status
		}
	}
	return ""
}

// documentIDs are the ids of the task detail's documents.
func (d taskDetail) documentIDs() []string {
	ids := []string{}
	for _, doc := range d.Documents {
		ids = append(ids, doc["id"].(string))
	}
	return ids
}

func TestTaskDocuments(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.Harness
		task := "/v1/onboarding-tasks/" + e.id
		u := e.presign(t, task, e.epc, photo("installation_photo_mdevice", jpegBytes, "image/jpeg"))
		d := u.Document
		if d["status"] != "pending" || d["version"] != 1.0 || d["gate_definition_id"] != "fc_installation" || d["uploaded_at"] != nil ||
			d["uploaded_by_user_name"] != "c-epc" || u.UploadMethod != "PUT" || u.UploadHeaders["Content-Type"] != "image/jpeg" ||
			!u.ExpiresAt.Equal(testkit.SecurityStart.Add(15*time.Minute)) || d["sha256"] != nil {
			t.Fatalf("presigned %+v", u)
		}
		doc := task + "/documents/" + u.id()
		h.Do("POST", doc+"/finalize", e.epc, nil).Expect(t, 409, "upload_missing")
		h.Do("GET", doc+"/download", e.epc, nil).Expect(t, 404, "document_not_found") // pending
		e.put(t, u, jpegBytes)
		if s := e.gateStatus(t, "fc_installation"); s != onboarding.GatePending {
			t.Fatalf("gate %s before finalize", s)
		}
		// Finalize answers the task detail, read after the gate moved.
		var got taskDetail
		h.Do("POST", doc+"/finalize", e.epc, nil).Expect(t, 200, "").JSON(t, &got)
		if got.OnboardingID != e.id || got.Role != "epc" || len(got.Documents) != 1 || got.Documents[0]["id"] != u.id() ||
			got.Documents[0]["uploaded_at"] == nil || got.Documents[0]["uploaded_by_user_name"] != "c-epc" ||
			got.Documents[0]["gate_definition_id"] != "fc_installation" || got.gateStatus("fc_installation") != "in_progress" {
			t.Fatalf("finalized %+v", got)
		}
		if s := e.gateStatus(t, "fc_installation"); s != onboarding.GateInProgress {
			t.Fatalf("gate %s after finalize", s)
		}
		h.Do("POST", doc+"/finalize", e.epc2, nil).Expect(t, 200, "") // idempotent

		// The task detail lists the document for the roles whose gates
		// hold its slot (epc owns the installation gate, ems_provider
		// contributes), not for the asset owner, whose gates do not.
		var detail taskDetail
		for _, c := range []struct {
			token, preview string
			want           []string
		}{
			{e.epc2, "", []string{u.id()}}, {e.owner, "", []string{}}, {e.AcmeRO, "ems_provider", []string{u.id()}},
			{e.AcmeRO, "asset_owner", []string{}}, {e.AcmeRO, "tso", []string{}},
		} {
			e.do("GET", task, c.token, c.preview, nil).Expect(t, 200, "").JSON(t, &detail)
			if !slices.Equal(detail.documentIDs(), c.want) {
				t.Fatalf("task detail of %s %s: documents %v, want %v", c.token, c.preview, detail.documentIDs(), c.want)
			}
		}

		// Download through the presigned GET.
		var dl struct {
			DownloadURL string    `json:"download_url"`
			ExpiresAt   time.Time `json:"expires_at"`
		}
		h.Do("GET", doc+"/download", e.epc2, nil).Expect(t, 200, "").JSON(t, &dl)
		if !dl.ExpiresAt.Equal(testkit.SecurityStart.Add(5 * time.Minute)) {
			t.Fatalf("download expires %s", dl.ExpiresAt)
		}
		req, _ := http.NewRequest("GET", dl.DownloadURL, nil)
		r := h.Send(req)
		if r.Status != 200 || !bytes.Equal(r.Body, jpegBytes) ||
			r.Header.Get("Content-Disposition") != "attachment; filename*=UTF-8''Z%C3%A4hler%201.jpg" {
			t.Fatalf("download %d %q", r.Status, r.Header.Get("Content-Disposition"))
		}

		// Other callers: another epc contact may read but not delete; the
		// asset owner's role does not work on the installation gate; a
		// session of another onboarding, beta and a bad role see nothing.
		h.Do("DELETE", doc, e.epc2, nil).Expect(t, 409, "not_uploader")
		h.Do("GET", doc+"/download", e.owner, nil).Expect(t, 404, "document_not_found")
		h.Do("POST", doc+"/finalize", e.owner, nil).Expect(t, 404, "document_not_found")
		h.Do("DELETE", doc, e.owner, nil).Expect(t, 404, "document_not_found")
		h.Do("POST", task+"/documents/presigned-upload", e.owner, photo("installation_photo_mdevice", jpegBytes, "image/jpeg")).
			Expect(t, 422, "validation_failed")
		h.Do("POST", task+"/documents/presigned-upload", e.owner, map[string]any{"document_type": "installation_photo_mdevice",
			"filename": "a.jpg", "content_type": "image/jpeg", "size_bytes": 10, "gate_definition_id": "fc_installation"}).Expect(t, 404, "gate_not_found")
		h.Do("GET", doc+"/download", e.other, nil).Expect(t, 404, "task_not_found")
		h.Do("GET", "/v1/onboarding-tasks/"+e.id2+"/documents/"+u.id()+"/download", e.other, nil).Expect(t, 404, "document_not_found")
		h.Do("GET", doc+"/download?role=tso", e.epc, nil).Expect(t, 404, "task_not_found")
		h.Do("GET", doc+"/download?role=nope", e.epc, nil).Expect(t, 422, "validation_failed")
		e.do("GET", doc+"/download", e.Beta, "epc", nil).Expect(t, 404, "task_not_found")
		h.Do("GET", doc+"/download", e.Acme, nil).Expect(t, 404, "task_not_found") // no contact role, no preview
		h.Do("GET", doc+"/download", e.None, nil).Expect(t, 403, "insufficient_scope")
		h.Do("DELETE", task+"/documents/not-a-uuid", e.epc, nil).Expect(t, 400, "malformed_request")
		h.Do("POST", "/v1/onboarding-tasks/x/documents/"+u.id()+"/finalize", e.epc, nil).Expect(t, 400, "malformed_request")
		h.Do("GET", task+"/documents/not-a-uuid/download", e.epc, nil).Expect(t, 404, "document_not_found")

		// Preview: reading needs onboarding.read, mutating onboarding.write.
		e.do("GET", doc+"/download", e.AcmeRO, "epc", nil).Expect(t, 200, "")
		e.do("GET", doc+"/download", e.AcmeRO, "asset_owner", nil).Expect(t, 404, "document_not_found")
		e.do("GET", doc+"/download", e.AcmeRO, "nope", nil).Expect(t, 422, "validation_failed")
		e.do("DELETE", doc, e.AcmeRO, "epc", nil).Expect(t, 403, "insufficient_scope")
		e.do("DELETE", doc, e.Acme, "epc", nil).Expect(t, 409, "not_uploader")
		body := `{"document_type":"installation_photo_antenna","filename":"antenne.png","content_type":"image/png","size_bytes":` +
			fmt.Sprint(len(pngBytes)) + `}`
		var pu upload
		e.do("POST", task+"/documents/presigned-upload", e.Platform, "epc", body).Expect(t, 201, "").JSON(t, &pu)
		if pu.Document["uploaded_by_user_name"] != "platform@example.com" {
			t.Fatalf("preview upload %+v", pu.Document)
		}
		e.put(t, pu, pngBytes)
		e.do("POST", task+"/documents/"+pu.id()+"/finalize", e.Platform, "epc", nil).Expect(t, 200, "")
		e.do("DELETE", task+"/documents/"+pu.id(), e.Platform, "epc", nil).Expect(t, 200, "")
		h.Do("GET", task+"/documents/"+pu.id()+"/download", e.epc, nil).Expect(t, 404, "document_not_found")

		// A new version replaces the current one.
		rep := photo("installation_photo_mdevice", pngBytes, "image/png")
		rep["replaces_document_id"] = u.id()
		v2 := e.presign(t, task, e.epc2, rep)
		if v2.Document["version"] != 2.0 {
			t.Fatalf("version %v", v2.Document["version"])
		}
		e.put(t, v2, pngBytes)
		h.Do("POST", task+"/documents/"+v2.id()+"/finalize", e.epc2, nil).Expect(t, 200, "").JSON(t, &got)
		if !slices.Equal(got.documentIDs(), []string{v2.id()}) || got.Documents[0]["version"] != 2.0 {
			t.Fatalf("after the replacement %+v", got)
		}
		h.Do("POST", task+"/documents/presigned-upload", e.epc, rep).Expect(t, 404, "document_not_found") // no longer current

		// The uploader deletes its document: 200 with the task detail.
		h.Do("DELETE", task+"/documents/"+v2.id(), e.epc2, nil).Expect(t, 200, "").JSON(t, &got)
		if got.OnboardingID != e.id || got.Role != "epc" || len(got.Documents) != 0 {
			t.Fatalf("after the delete %+v", got)
		}
		e.do("GET", task, e.epc, "", nil).Expect(t, 200, "").JSON(t, &detail)
		if len(detail.Documents) != 0 {
			t.Fatalf("task detail after the delete %+v", detail)
		}
		h.Do("DELETE", task+"/documents/"+v2.id(), e.epc2, nil).Expect(t, 404, "document_not_found")
	})
}

func TestUploadRejected(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	h := e.Harness
	task := "/v1/onboarding-tasks/" + e.id
	reason := func(r *testkit.Response) string {
		return fmt.Sprint(r.Map(t)["reason"])
	}
	// A shorter upload than declared.
	body := photo("installation_photo_mdevice", jpegBytes, "image/jpeg")
	u := e.presign(t, task, e.epc, body)
	e.put(t, u, jpegBytes[:100])
	if r := h.Do("POST", task+"/documents/"+u.id()+"/finalize", e.epc, nil).Expect(t, 409, "upload_rejected"); reason(r) != "size_mismatch" {
		t.Fatalf("reason %s", r)
	}
	// The object was deleted; the row stays pending.
	h.Do("POST", task+"/documents/"+u.id()+"/finalize", e.epc, nil).Expect(t, 409, "upload_missing")
	// A PDF declared as a JPEG photo.
	u = e.presign(t, task, e.epc, map[string]any{"document_type": "installation_photo_mdevice", "filename": "x.jpg",
		"content_type": "image/jpeg", "size_bytes": len(pdfBytes)})
	e.put(t, u, pdfBytes)
	if r := h.Do("POST", task+"/documents/"+u.id()+"/finalize", e.epc, nil).Expect(t, 409, "upload_rejected"); reason(r) != "type_not_allowed" {
		t.Fatalf("reason %s", r)
	}
	// A PNG declared as a JPEG.
	u = e.presign(t, task, e.epc, photo("installation_photo_mdevice", pngBytes, "image/jpeg"))
	e.put(t, u, pngBytes)
	if r := h.Do("POST", task+"/documents/"+u.id()+"/finalize", e.epc, nil).Expect(t, 409, "upload_rejected"); reason(r) != "type_not_allowed" {
		t.Fatalf("reason %s", r)
	}
	// Too late: an hour after the URL expired.
	u = e.presign(t, task, e.epc, photo("installation_photo_mdevice", jpegBytes, "image/jpeg"))
	e.put(t, u, jpegBytes)
	e.Security.Advance(documents.UploadTTL + documents.FinalizeGrace)
	epc := e.Session(e.ob, "c-epc", onboarding.RoleEPC)
	h.Do("POST", task+"/documents/"+u.id()+"/finalize", epc, nil).Expect(t, 409, "upload_expired")
	if s := e.gateStatus(t, "fc_installation"); s != onboarding.GatePending {
		t.Fatalf("a rejected upload moved the gate to %s", s)
	}
	// Body checks.
	for _, b := range []map[string]any{
		{"document_type": "installation_photo_mdevice", "filename": "a/b.jpg", "content_type": "image/jpeg", "size_bytes": 10},
		{"document_type": "installation_photo_mdevice", "filename": "a\x07.jpg", "content_type": "image/jpeg", "size_bytes": 10},
		{"document_type": "installation_photo_mdevice", "filename": "a.pdf", "content_type": "application/pdf", "size_bytes": 10},
		{"document_type": "installation_photo_mdevice", "filename": "a.jpg", "content_type": "image/jpeg", "size_bytes": 25_000_001},
		{"document_type": "nope", "filename": "a.jpg", "content_type": "image/jpeg", "size_bytes": 10},
		{"document_type": "installation_photo_mdevice", "filename": "a.jpg", "content_type": "image/jpeg"},
		{"document_type": "test_results_signed", "filename": "a.pdf", "content_type": "application/pdf", "size_bytes": 10, "gate_definition_id": "fc_installation"},
	} {
		h.Do("POST", task+"/documents/presigned-upload", epc, b).Expect(t, 422, "")
	}
	h.Do("POST", task+"/documents/presigned-upload", epc, map[string]any{"document_type": "installation_photo_mdevice", "filename": "a.jpg",
		"content_type": "image/jpeg", "size_bytes": 10, "gate_definition_id": "fc_nope"}).Expect(t, 404, "gate_not_found")
}

func TestManagerDocuments(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.Harness
		base := "/v1/onboardings/" + e.id
		body := map[string]any{"document_type": "test_results_signed", "filename": "Test.pdf", "content_type": "application/pdf",
			"size_bytes": len(pdfBytes), "gate_definition_id": "fc_comm_test"}
		u := e.presign(t, base, e.Acme, body)
		if u.Document["sha256"] != nil || u.Document["status"] != "pending" {
			t.Fatalf("presigned %+v", u.Document)
		}
		e.put(t, u, pdfBytes)
		d := h.Do("POST", base+"/documents/"+u.id()+"/finalize", e.Platform, nil).Expect(t, 200, "").Map(t)
		if d["status"] != "available" || len(d["sha256"].(string)) != 64 || d["uploaded_by_user_name"] != "acme@example.com" {
			t.Fatalf("finalized %v", d)
		}
		if s := e.gateStatus(t, "fc_comm_test"); s != onboarding.GateInProgress {
			t.Fatalf("comm-test gate %s", s)
		}
		// The slot takes one document: replace it.
		h.Do("POST", base+"/documents/presigned-upload", e.Acme, body).Expect(t, 409, "document_slot_full")
		body["replaces_document_id"] = u.id()
		v2 := e.presign(t, base, e.Acme, body)
		e.put(t, v2, pdfBytes)
		h.Do("POST", base+"/documents/"+v2.id()+"/finalize", e.Acme, nil).Expect(t, 200, "")
		var list struct {
			Documents []map[string]any `json:"documents"`
			Total     int              `json:"total"`
		}
		h.Do("GET", base+"/documents", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 1 || list.Documents[0]["id"] != v2.id() || list.Documents[0]["replaces_document_id"] != u.id() {
			t.Fatalf("list %+v", list)
		}
		h.Do("GET", base+"/documents?include_versions=true&gate_definition_id=fc_comm_test", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 2 || !slices.ContainsFunc(list.Documents, func(d map[string]any) bool { return d["id"] == u.id() && d["superseded_by"] == v2.id() }) {
			t.Fatalf("versions %+v", list)
		}
		h.Do("GET", base+"/documents?document_type=betr", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 0 {
			t.Fatalf("betr %+v", list)
		}
		h.Do("GET", base+"/documents?gate_definition_id=mon_rfi", e.AcmeRO, nil).Expect(t, 422, "validation_failed")
		// Superseded versions download too.
		h.Do("GET", base+"/documents/"+u.id()+"/download", e.AcmeRO, nil).Expect(t, 200, "")
		// Anyone with the scope deletes any document.
		h.Do("DELETE", base+"/documents/"+v2.id(), e.Platform, nil).Expect(t, 204, "")
		h.Do("DELETE", base+"/documents/"+v2.id(), e.Platform, nil).Expect(t, 404, "document_not_found")
		h.Do("GET", base+"/documents/"+v2.id()+"/download", e.AcmeRO, nil).Expect(t, 404, "document_not_found")
		h.Do("GET", base+"/documents?include_deleted=true", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 1 || list.Documents[0]["deleted_by_name"] != "platform@example.com" || list.Documents[0]["deleted_at"] == nil {
			t.Fatalf("deleted %+v", list)
		}
		// The "documents" requirement of the comm-test gate is unmet again.
		ob, err := e.Core.Get(context.Background(), onboardingtest.PlatformActor, e.id)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := e.Core.GateForKind(context.Background(), ob, onboarding.KindCommTest)
		def, _ := g.Definition()
		unmet, err := e.Core.Unmet(context.Background(), ob, g, def)
		if err != nil || len(unmet) != 1 || unmet[0].Location != "documents.test_results_signed" {
			t.Fatalf("unmet %+v %v", unmet, err)
		}

		// Errors: scope, other organisation, unknown ids, read-only.
		one := base + "/documents/" + u.id()
		for _, c := range []struct{ method, path, token string }{
			{"GET", base + "/documents", e.None}, {"POST", base + "/documents/presigned-upload", e.AcmeRO},
			{"POST", one + "/finalize", e.AcmeRO}, {"GET", one + "/download", e.None}, {"DELETE", one, e.AcmeRO},
			{"GET", base + "/documents", e.epc},
		} {
			want := errs.Code("insufficient_scope")
			if c.token == e.epc {
				want = "magic_link_session_not_allowed"
			}
			h.Do(c.method, c.path, c.token, body).Expect(t, 403, want)
		}
		for _, c := range []struct{ method, path string }{
			{"GET", base + "/documents"}, {"POST", base + "/documents/presigned-upload"}, {"POST", one + "/finalize"},
			{"GET", one + "/download"}, {"DELETE", one},
		} {
			h.Do(c.method, c.path, e.Beta, body).Expect(t, 404, "onboarding_not_found")
		}
		h.Do("GET", "/v1/onboardings/nope/documents", e.Acme, nil).Expect(t, 404, "onboarding_not_found")
		h.Do("GET", base+"/documents/nope/download", e.Acme, nil).Expect(t, 404, "document_not_found")
		h.Do("GET", "/v1/onboardings/"+e.id2+"/documents/"+u.id()+"/download", e.Acme, nil).Expect(t, 404, "document_not_found")
		h.Do("POST", base+"/documents/presigned-upload", e.Acme, map[string]any{"document_type": "test_results_signed",
			"filename": "x.pdf", "content_type": "application/pdf", "size_bytes": 10}).Expect(t, 422, "")
	})
}

func TestLimitsLocksAndCancel(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.Harness
		ctx := context.Background()
		task := "/v1/onboarding-tasks/" + e.id
		antenna := photo("installation_photo_antenna", jpegBytes, "image/jpeg")
		for range documents.MaxPendingUploads {
			e.presign(t, task, e.epc, antenna)
		}
		h.Do("POST", task+"/documents/presigned-upload", e.epc, antenna).Expect(t, 409, "pending_upload_limit")
		// Expired pending uploads no longer count.
		h.Security.Advance(documents.UploadTTL)
		epc := e.Session(e.ob, "c-epc", onboarding.RoleEPC)
		u := e.presign(t, task, epc, antenna)
		e.put(t, u, jpegBytes)
		h.Do("POST", task+"/documents/"+u.id()+"/finalize", epc, nil).Expect(t, 200, "")
		var list struct {
			Total int `json:"total"`
		}
		h.Do("GET", "/v1/onboardings/"+e.id+"/documents", e.Acme, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 1 {
			t.Fatalf("expired pending uploads listed: %d", list.Total)
		}

		// A waived gate is locked: no upload, finalize or delete.
		pending := e.presign(t, task, epc, antenna)
		e.put(t, pending, jpegBytes)
		ob, err := e.Core.Get(ctx, onboardingtest.PlatformActor, e.id)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := e.Core.GateForKind(ctx, ob, onboarding.KindInstallation)
		if _, err := e.Core.Act(ctx, onboardingtest.PlatformActor, e.id, g.ID, onboarding.ActionWaive, "photos by mail"); err != nil {
			t.Fatal(err)
		}
		h.Do("POST", task+"/documents/presigned-upload", epc, antenna).Expect(t, 409, "gate_locked")
		h.Do("POST", task+"/documents/"+pending.id()+"/finalize", epc, nil).Expect(t, 409, "gate_locked")
		h.Do("DELETE", task+"/documents/"+u.id(), epc, nil).Expect(t, 409, "gate_locked")
		h.Do("DELETE", "/v1/onboardings/"+e.id+"/documents/"+u.id(), e.Platform, nil).Expect(t, 409, "gate_locked")
		if _, err := e.Core.Act(ctx, onboardingtest.PlatformActor, e.id, g.ID, onboarding.ActionReopen, "one more photo"); err != nil {
			t.Fatal(err)
		}

		// Cancelling drops the pending uploads; the workflow is read-only.
		if _, err := e.Core.Cancel(ctx, onboardingtest.PlatformActor, e.id, "site sold"); err != nil {
			t.Fatal(err)
		}
		h.Do("POST", task+"/documents/"+pending.id()+"/finalize", epc, nil).Expect(t, 404, "document_not_found")
		h.Do("POST", task+"/documents/presigned-upload", epc, antenna).Expect(t, 409, "onboarding_closed")
		h.Do("DELETE", task+"/documents/"+u.id(), epc, nil).Expect(t, 409, "onboarding_closed")
		h.Do("GET", task+"/documents/"+u.id()+"/download", epc, nil).Expect(t, 200, "") // readable
		entries, _, err := e.Core.AuditTrail(ctx, onboardingtest.PlatformActor, e.id, onboarding.AuditFilter{ActionPrefix: "document.", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		actions := map[string]int{}
		for _, en := range entries {
			actions[en.Action]++
		}
		// Every pending upload is discarded, also those whose URL expired.
		if actions["document.upload_started"] != 22 || actions["document.finalized"] != 1 || actions["document.discarded"] != 21 {
			t.Fatalf("audit %v", actions)
		}
	})
}
