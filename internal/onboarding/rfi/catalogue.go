package rfi

// The RfI gates' definition ids (docs/onboarding.md, section 1).
const (
	FullControlGate    = "fc_rfi"
	MonitoringOnlyGate = "mon_rfi"
)

// GateFields returns the RfI field definitions of a gate definition, nil
// for a gate without fields. Each call returns a fresh copy, so a caller
// may change it.
func GateFields(definitionID string) []Field {
	switch definitionID {
	case FullControlGate:
		return catalogue(true)
	case MonitoringOnlyGate:
		return catalogue(false)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// Who may edit what: the platform's onboarding manager everything; the
// asset owner the commercial and site data; the EPC what it built; the
// EMS provider its system.
var (
	owners    = []string{AssetOwner, PlatformOnboarding}
	builders  = []string{AssetOwner, EPC, PlatformOnboarding}
	technical = []string{AssetOwner, EPC, EMSProvider, PlatformOnboarding}
	ems       = []string{EMSProvider, PlatformOnboarding}
)

func numberField(key string, de, en string, required bool, who []string, asset, unit string, lo, hi float64, decimals int) Field {
	return Field{Key: key, Label: Label{de, en}, Type: Number, Required: required, EditableBy: who, AssetField: asset,
		Constraints: Constraints{Min: ptr(lo), Max: ptr(hi), Decimals: ptr(decimals), Unit: unit}}
}

func str(key string, de, en string, required bool, who []string) Field {
	return Field{Key: key, Label: Label{de, en}, Type: String, Required: required, EditableBy: who}
}

func typed(t Type, key string, de, en string, required bool, who []string) Field {
	return Field{Key: key, Label: Label{de, en}, Type: t, Required: required, EditableBy: who}
}

func options(vs ...[3]string) []Option {
	out := make([]Option, len(vs))
	for i, v := range vs {
		out[i] = Option{Value: v[0], Label: Label{v[1], v[2]}}
	}
	return out
}

// catalogue is the RfI of a battery onboarding; control adds what only a
// full_control asset needs (ramp rates, the products it will offer).
func catalogue(control bool) []Field {
	tso := typed(Enum, "tso", "Übertragungsnetzbetreiber (Regelzone)", "Transmission system operator (control zone)", true, owners)
	tso.AssetField = "tso"
	tso.Constraints.Options = []Option{
		{Value: "50hertz", Label: Label{"50Hertz", "50Hertz"}, AssetValue: "50HZ"},
		{Value: "amprion", Label: Label{"Amprion", "Amprion"}, AssetValue: "AMP"},
		{Value: "tennet", Label: Label{"TenneT", "TenneT"}, AssetValue: "TNNT"},
		{Value: "transnetbw", Label: Label{"TransnetBW", "TransnetBW"}, AssetValue: "TNBW"},
	}
	assetType := typed(Enum, "asset_type", "Anlagentyp", "Asset type", true, owners)
	assetType.AssetField = "asset_type"
	assetType.Constraints.Options = options(
		[3]string{"standalone", "Eigenständiger Speicher", "Standalone storage"},
		[3]string{"green_colocation", "Grüne Co-Location (ohne Netzbezug)", "Green co-location (no grid import)"},
		[3]string{"grey_colocation", "Graue Co-Location", "Grey co-location"})
	coords := typed(Coordinates, "site_coordinates", "Standortkoordinaten (WGS84)", "Site coordinates (WGS84)", true, builders)
	coords.AssetField = "latitude,longitude"
	commissioning := typed(Date, "commissioning_date", "Datum der Inbetriebnahme", "Commissioning date", true, builders)
	commissioning.Constraints.MinDate, commissioning.Constraints.MaxDate = "2000-01-01", "2099-12-31"
	malo := str("market_location_id", "Marktlokations-ID (MaLo)", "Market location id (MaLo)", true, owners)
	malo.Constraints.Pattern = `[0-9]{11}`
	melo := str("metering_point_id", "Messlokations-ID (MeLo)", "Metering point id (MeLo)", false, owners)
	melo.Constraints.Pattern = `DE[0-9A-Z]{31}`
	chemistry := typed(Enum, "battery_chemistry", "Zellchemie", "Cell chemistry", false, builders)
	chemistry.Constraints.Options = options(
		[3]string{"lfp", "Lithium-Eisenphosphat (LFP)", "Lithium iron phosphate (LFP)"},
		[3]string{"nmc", "Lithium-Nickel-Mangan-Cobalt (NMC)", "Lithium nickel manganese cobalt (NMC)"},
		[3]string{"lto", "Lithiumtitanat (LTO)", "Lithium titanate (LTO)"},
		[3]string{"sodium_ion", "Natrium-Ionen", "Sodium-ion"},
		[3]string{"other", "Andere", "Other"})
	protocols := typed(MultiEnum, "ems_protocols", "Protokolle des EMS", "Protocols of the EMS", true, ems)
	protocols.Constraints.Options = options(
		[3]string{"iec104", "IEC 60870-5-104", "IEC 60870-5-104"},
		[3]string{"modbus_tcp", "Modbus TCP", "Modbus TCP"},
		[3]string{"opcua", "OPC UA", "OPC UA"},
		[3]string{"mqtt", "MQTT", "MQTT"})
	protocols.Constraints.MinItems = 1
	remote := typed(Boolean, "remote_access_available", "Fernzugriff auf das EMS vorhanden", "Remote access to the EMS available", true, ems)
	manual := typed(URL, "technical_documentation_url", "Link zur technischen Dokumentation", "Link to the technical documentation", false, technical)
	notes := typed(Text, "notes", "Anmerkungen", "Notes", false, technical)

	fields := []Field{
		assetType,
		numberField("usable_power_capacity_mw", "Nutzbare Leistung", "Usable power capacity", true, builders, "usable_power_capacity_mw", "MW", 0.1, 1000, 3),
		numberField("usable_energy_capacity_mwh", "Nutzbare Energie", "Usable energy capacity", true, builders, "usable_energy_capacity_mwh", "MWh", 0.1, 10000, 3),
		numberField("grid_connection_power_mw", "Netzanschlussleistung", "Grid connection power", true, builders, "grid_connection_power_mw", "MW", 0.1, 1000, 3),
		numberField("charge_efficiency", "Ladewirkungsgrad", "Charge efficiency", false, builders, "charge_efficiency", "", 0.5, 1, 3),
		numberField("discharge_efficiency", "Entladewirkungsgrad", "Discharge efficiency", false, builders, "discharge_efficiency", "", 0.5, 1, 3),
		numberField("voltage_level_kv", "Spannungsebene am Netzanschlusspunkt", "Voltage level at the point of connection", true, builders, "", "kV", 0.4, 380, 1),
		tso,
		str("grid_operator", "Anschlussnetzbetreiber", "Grid operator (DSO)", true, owners),
		malo,
		melo,
		coords,
		commissioning,
		str("battery_manufacturer", "Hersteller der Batterie", "Battery manufacturer", true, builders),
		chemistry,
		str("inverter_manufacturer", "Hersteller des Wechselrichters", "Inverter manufacturer", true, builders),
		str("inverter_model", "Wechselrichtermodell", "Inverter model", false, builders),
		str("ems_vendor", "Hersteller des EMS", "EMS vendor", true, ems),
		protocols,
		remote,
		str("site_contact_name", "Ansprechperson vor Ort", "Site contact", true, builders),
		typed(Phone, "site_contact_phone", "Telefon der Ansprechperson vor Ort", "Site contact phone", true, builders),
		typed(Email, "site_contact_email", "E-Mail der Ansprechperson vor Ort", "Site contact e-mail", true, builders),
		manual,
		notes,
	}
	if control {
		products := typed(MultiEnum, "planned_products", "Geplante Regelleistungsprodukte", "Planned balancing products", true, owners)
		products.Constraints.Options = options(
			[3]string{"fcr", "FCR (Primärregelleistung)", "FCR"},
			[3]string{"afrr_pos", "aFRR positiv", "aFRR positive"},
			[3]string{"afrr_neg", "aFRR negativ", "aFRR negative"})
		products.Constraints.MinItems = 1
		fields = append(fields,
			numberField("max_pos_ramp_rate_mw_per_sec", "Maximale Rampe (Entladen)", "Maximum ramp rate (discharge)", false, technical, "max_pos_ramp_rate_mw_per_sec", "MW/s", 0.001, 1000, 3),
			numberField("min_neg_ramp_rate_mw_per_sec", "Maximale Rampe (Laden)", "Maximum ramp rate (charge)", false, technical, "min_neg_ramp_rate_mw_per_sec", "MW/s", 0.001, 1000, 3),
			products)
	}
	return fields
}
