package onboarding

import (
	"slices"

	"atcp/internal/assets"
)

// Text is a bilingual text.
type Text struct {
	DE string
	EN string
}

// The gate kinds: what a gate is about, whatever its template. Other groups
// find their gate by kind (Service.GateForKind, Service.TouchGate).
const (
	KindRfI              = "rfi"
	KindDPL              = "dpl"
	KindInstallation     = "installation"
	KindCommTest         = "comm_test"
	KindPrequalification = "prequalification"
	KindGoLive           = "go_live"
)

// The requirement kinds a RequirementCheck is registered for (Service.AddRequirement).
const (
	RequireFields            = "fields"
	RequireDocuments         = "documents"
	RequireDPL               = "dpl"
	RequireCommunicationTest = "communication_test"
	RequirePrequalification  = "prequalification"
)

// RequirementKinds lists the kinds a check may be registered for.
var RequirementKinds = []string{RequireFields, RequireDocuments, RequireDPL, RequireCommunicationTest, RequirePrequalification}

// DocumentSlot is a kind of document a gate asks for.
type DocumentSlot struct {
	DocumentType  string
	Label         Text
	Description   Text
	Required      bool
	AllowMultiple bool
}

// Requirements says which checks run on submit.
type Requirements struct {
	Fields            bool // the RfI's required fields are valid
	Documents         bool // every required document slot holds a current document
	DPLComplete       bool // every required template point has a DPL row
	CommunicationTest bool // the latest communication test passed
	Prequalification  bool // every submitted prequalification has a result
}

// OnPass is what passing (or waiving) the gate does.
type OnPass struct {
	AssetOperationalStatus assets.OperationalStatus // "" for none
	ApplyFieldsToAsset     bool
	CompleteWorkflow       bool
}

// GateDefinition is a gate of a template.
type GateDefinition struct {
	DefinitionID       string
	TemplateID         string
	Kind               string
	Order              int
	Title              Text
	Description        Text
	OwnerRole          TaskRole
	ContributorRoles   []TaskRole
	ReviewerRole       TaskRole
	DependsOn          []string
	DeadlineOffsetDays int
	DocumentSlots      []DocumentSlot
	Requirements       Requirements
	OnPass             OnPass
}

// Template is a built-in, versioned workflow template. A workflow keeps
// its template id, so that a later version never changes it.
type Template struct {
	TemplateID      string
	IntegrationType assets.IntegrationType
	Version         int
	Title           Text
	Gates           []GateDefinition // in order
}

// GateDefinitionIDs lists the ids of the template's gates in order.
func (t Template) GateDefinitionIDs() []string {
	out := make([]string, len(t.Gates))
	for i, g := range t.Gates {
		out[i] = g.DefinitionID
	}
	return out
}

// Definition returns the template's gate definition with id.
func (t Template) Definition(id string) (GateDefinition, bool) {
	i := slices.IndexFunc(t.Gates, func(g GateDefinition) bool { return g.DefinitionID == id })
	if i < 0 {
		return GateDefinition{}, false
	}
	return t.Gates[i], true
}

var (
	slotPhotoMDevice = DocumentSlot{DocumentType: "installation_photo_mdevice", Required: true, AllowMultiple: true,
		Label:       Text{"Foto Messgerät", "Photo of the metering device"},
		Description: Text{"Foto des installierten Messgeräts mit lesbarem Typenschild.", "Photo of the installed metering device with its rating plate readable."}}
	slotPhotoAntenna = DocumentSlot{DocumentType: "installation_photo_antenna", Required: true, AllowMultiple: true,
		Label:       Text{"Foto Antenne", "Photo of the antenna"},
		Description: Text{"Foto der installierten Antenne.", "Photo of the installed antenna."}}
	slotSingleLine = DocumentSlot{DocumentType: "single_line_diagram",
		Label:       Text{"Übersichtsschaltplan", "Single-line diagram"},
		Description: Text{"Übersichtsschaltplan der Anlage (optional).", "Single-line diagram of the site (optional)."}}
	slotDPLSigned = DocumentSlot{DocumentType: "dpl_signed",
		Label:       Text{"Unterschriebene Datenpunktliste", "Signed data-point list"},
		Description: Text{"Die unterschriebene Datenpunktliste (optional).", "The signed data-point list (optional)."}}
	slotTestResults = DocumentSlot{DocumentType: "test_results_signed", Required: true,
		Label:       Text{"Unterschriebenes Testprotokoll", "Signed test results"},
		Description: Text{"Das unterschriebene Protokoll des Installations- und Kommunikationstests.", "The signed record of the installation and communication test."}}
	slotBetr = DocumentSlot{DocumentType: "betr", Required: true,
		Label:       Text{"BETR", "BETR"},
		Description: Text{"Das BETR-Dokument der Präqualifikation.", "The BETR document of the prequalification."}}
	slotCertificate = DocumentSlot{DocumentType: "prequalification_certificate", AllowMultiple: true,
		Label:       Text{"Präqualifikationsnachweis", "Prequalification certificate"},
		Description: Text{"Nachweise des ÜNB (optional).", "Certificates of the TSO (optional)."}}
)

// gates builds a template's gate definitions from the shared shape: ids
// are prefix + kind, each depends on the one before it.
func gates(templateID, prefix string, withPrequalification bool) []GateDefinition {
	defs := []GateDefinition{
		{Kind: KindRfI, DeadlineOffsetDays: 14,
			Title:       Text{"Informationsanfrage", "Request for information"},
			Description: Text{"Die Stammdaten der Anlage.", "The master data of the asset."},
			OwnerRole:   RoleAssetOwner, ContributorRoles: []TaskRole{RoleEPC, RoleEMSProvider},
			Requirements: Requirements{Fields: true}, OnPass: OnPass{ApplyFieldsToAsset: true}},
		{Kind: KindDPL, DeadlineOffsetDays: 28,
			Title:       Text{"Datenpunktliste", "Data-point list"},
			Description: Text{"Die Zuordnung der Telemetriepunkte.", "The mapping of the telemetry points."},
			OwnerRole:   RoleEMSProvider, ContributorRoles: []TaskRole{RoleEPC},
			DocumentSlots: []DocumentSlot{slotDPLSigned},
			Requirements:  Requirements{DPLComplete: true}},
		{Kind: KindInstallation, DeadlineOffsetDays: 42,
			Title:       Text{"Installation", "Installation"},
			Description: Text{"Die Installation von Messgerät und Antenne.", "The installation of the metering device and the antenna."},
			OwnerRole:   RoleEPC, ContributorRoles: []TaskRole{RoleEMSProvider},
			DocumentSlots: []DocumentSlot{slotPhotoMDevice, slotPhotoAntenna, slotSingleLine},
			Requirements:  Requirements{Documents: true}, OnPass: OnPass{AssetOperationalStatus: assets.OnboardingTesting}},
		{Kind: KindCommTest, DeadlineOffsetDays: 56,
			Title:       Text{"Installations- und Kommunikationstest", "Installation and communication test"},
			Description: Text{"Der Test der Kommunikation mit der Anlage.", "The test of the communication with the asset."},
			OwnerRole:   RoleEMSProvider, ContributorRoles: []TaskRole{RoleEPC},
			DocumentSlots: []DocumentSlot{slotTestResults},
			Requirements:  Requirements{Documents: true, CommunicationTest: true}},
	}
	if withPrequalification {
		defs = append(defs, GateDefinition{Kind: KindPrequalification, DeadlineOffsetDays: 84,
			Title:       Text{"Präqualifikation FCR und aFRR", "FCR and aFRR prequalification"},
			Description: Text{"Die Präqualifikation beim ÜNB.", "The prequalification with the TSO."},
			OwnerRole:   RolePlatformOnboarding, ContributorRoles: []TaskRole{RoleAssetOwner, RoleTSO},
			DocumentSlots: []DocumentSlot{slotBetr, slotCertificate},
			Requirements:  Requirements{Documents: true, Prequalification: true}})
	}
	defs = append(defs, GateDefinition{Kind: KindGoLive, DeadlineOffsetDays: 98,
		Title:       Text{"Inbetriebnahme", "Go-live"},
		Description: Text{"Die Freigabe für den Betrieb.", "The release for operation."},
		OwnerRole:   RolePlatformOnboarding, ContributorRoles: []TaskRole{},
		OnPass: OnPass{AssetOperationalStatus: assets.Live, CompleteWorkflow: true}})
	for i := range defs {
		d := &defs[i]
		d.DefinitionID, d.TemplateID, d.Order, d.ReviewerRole = prefix+d.Kind, templateID, i+1, RolePlatformOnboarding
		d.DependsOn = []string{}
		if i > 0 {
			d.DependsOn = []string{defs[i-1].DefinitionID}
		}
		if d.DocumentSlots == nil {
			d.DocumentSlots = []DocumentSlot{}
		}
	}
	return defs
}

// The built-in templates, by integration type.
var templates = []Template{
	{TemplateID: "fc_v1", IntegrationType: assets.FullControl, Version: 1,
		Title: Text{"Vollsteuerung", "Full control"}, Gates: gates("fc_v1", "fc_", true)},
	{TemplateID: "mon_v1", IntegrationType: assets.MonitoringOnly, Version: 1,
		Title: Text{"Nur Überwachung", "Monitoring only"}, Gates: gates("mon_v1", "mon_", false)},
}

// Templates returns the built-in templates in id order.
func Templates() []Template { return slices.Clone(templates) }

// TemplateByID returns the built-in template with id.
func TemplateByID(id string) (Template, bool) {
	i := slices.IndexFunc(templates, func(t Template) bool { return t.TemplateID == id })
	if i < 0 {
		return Template{}, false
	}
	return templates[i], true
}

// TemplateFor returns the template of an integration type.
func TemplateFor(it assets.IntegrationType) (Template, bool) {
	i := slices.IndexFunc(templates, func(t Template) bool { return t.IntegrationType == it })
	if i < 0 {
		return Template{}, false
	}
	return templates[i], true
}

// DefinitionByID returns a gate definition of any built-in template.
func DefinitionByID(id string) (GateDefinition, bool) {
	for _, t := range templates {
		if d, ok := t.Definition(id); ok {
			return d, true
		}
	}
	return GateDefinition{}, false
}
